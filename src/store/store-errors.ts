import { DuplicateKeyError } from '../domain/errors.js';

/** True for a unique or primary-key violation in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  // SQLite (better-sqlite3) names the constraint kind; PostgreSQL uses SQLSTATE 23505.
  return code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === '23505';
}

/** Runs an insert and reports a unique violation as DuplicateKeyError. */
export async function insertUnique<T>(entity: string, insert: () => Promise<T>): Promise<T> {
  try {
    return await insert();
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateKeyError(entity);
    throw error;
  }
}
