import { sql, type Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type LoginAttemptsStore = ReturnType<typeof loginAttemptsStore>;

export interface LoginAttempts {
  failures: number;
  firstFailureAt: number;
  blockedUntil: number | null;
}

export function loginAttemptsStore(db: Kysely<Schema>) {
  return {
    /**
     * Counts one more attempt for the account in one statement, so concurrent attempts each get their own number:
     * the count restarts when the window since the first attempt has passed, and a block that has run out is lifted.
     */
    async claim(accountKey: string, now: number, windowMs: number): Promise<LoginAttempts> {
      const windowStart = now - windowMs;
      const inWindow = sql<boolean>`login_attempts.first_failure_at > ${windowStart}`;
      const row = await db
        .insertInto('login_attempts')
        .values({ account_key: accountKey, failures: 1, first_failure_at: now, blocked_until: null })
        .onConflict((oc) =>
          oc.column('account_key').doUpdateSet({
            failures: sql<number>`case when ${inWindow} then login_attempts.failures + 1 else 1 end`,
            first_failure_at: sql<number>`case when ${inWindow} then login_attempts.first_failure_at else ${now} end`,
            blocked_until: sql<
              number | null
            >`case when login_attempts.blocked_until > ${now} then login_attempts.blocked_until else null end`,
          }),
        )
        .returning(['failures', 'first_failure_at', 'blocked_until'])
        .executeTakeFirstOrThrow();
      return {
        failures: Number(row.failures),
        firstFailureAt: Number(row.first_failure_at),
        blockedUntil: row.blocked_until === null ? null : Number(row.blocked_until),
      };
    },
    async block(accountKey: string, until: number): Promise<void> {
      await db.updateTable('login_attempts').set({ blocked_until: until }).where('account_key', '=', accountKey).execute();
    },
    async clear(accountKey: string): Promise<void> {
      await db.deleteFrom('login_attempts').where('account_key', '=', accountKey).execute();
    },
    /** Removes the rows whose window has passed and whose block (if any) has run out: they count for nothing. */
    async prune(now: number, windowMs: number): Promise<number> {
      const result = await db
        .deleteFrom('login_attempts')
        .where('first_failure_at', '<=', now - windowMs)
        .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', now)]))
        .executeTakeFirst();
      return Number(result.numDeletedRows);
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('login_attempts')
        .select((eb) => eb.fn.countAll<number>().as('rows'))
        .executeTakeFirstOrThrow();
      return Number(row.rows);
    },
  };
}
