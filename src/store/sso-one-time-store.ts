import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type SsoOneTimeStore = ReturnType<typeof ssoOneTimeStore>;

/**
 * Entries used at most once and only until they expire (migration 0025), shared by every instance of a deployment:
 * the state of a sign-in under way, the one-time codes of finished ones, and logout token ids already seen.
 */
export function ssoOneTimeStore(db: Kysely<Schema>) {
  return {
    /** Adds an entry; false when one with this id exists and has not expired (a replay). Expired entries are swept. */
    async put(id: string, payload: string, expiresAt: number, now: number): Promise<boolean> {
      await db.deleteFrom('sso_one_time').where('expires_at', '<=', now).execute();
      const result = await db
        .insertInto('sso_one_time')
        .values({ id, payload, expires_at: expiresAt })
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
    },
    /** Removes the entry and answers its payload; undefined when there is none or it has expired. Only one taker wins. */
    async take(id: string, now: number): Promise<string | undefined> {
      const row = await db.deleteFrom('sso_one_time').where('id', '=', id).returning(['payload', 'expires_at']).executeTakeFirst();
      return row && row.expires_at > now ? row.payload : undefined;
    },
  };
}
