import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type LoginAttemptsStore = ReturnType<typeof loginAttemptsStore>;

export interface LoginAttempts {
  failures: number;
  firstFailureAt: number;
  blockedUntil: number | null;
}

export function loginAttemptsStore(db: Kysely<Schema>) {
  return {
    async get(accountKey: string): Promise<LoginAttempts | undefined> {
      const row = await db.selectFrom('login_attempts').selectAll().where('account_key', '=', accountKey).executeTakeFirst();
      return row && { failures: row.failures, firstFailureAt: row.first_failure_at, blockedUntil: row.blocked_until };
    },
    async save(accountKey: string, attempts: LoginAttempts): Promise<void> {
      await db
        .insertInto('login_attempts')
        .values({ account_key: accountKey, failures: attempts.failures, first_failure_at: attempts.firstFailureAt, blocked_until: attempts.blockedUntil })
        .onConflict((oc) =>
          oc.column('account_key').doUpdateSet({ failures: attempts.failures, first_failure_at: attempts.firstFailureAt, blocked_until: attempts.blockedUntil }),
        )
        .execute();
    },
    async clear(accountKey: string): Promise<void> {
      await db.deleteFrom('login_attempts').where('account_key', '=', accountKey).execute();
    },
  };
}
