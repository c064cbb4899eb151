import { sql, type Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type LeasesStore = ReturnType<typeof leasesStore>;

/**
 * Named cluster leases: at most one holder per name at a time, across every instance on one store. A lease is
 * taken or renewed by one conditional upsert (free, expired, or already ours), so two instances racing for it
 * cannot both win: the row's lock (PostgreSQL) or the single writer (SQLite) orders them. Times are milliseconds
 * on the platform's clock of the caller; instances are assumed to have synchronized clocks (NTP), and the expiry
 * must exceed their skew by a wide margin.
 */
export function leasesStore(db: Kysely<Schema>) {
  return {
    /** Takes or renews `name` for `holder` until `now + ttlMs`; true when `holder` holds it afterwards. */
    async acquire(name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
      const row = await db
        .insertInto('leases')
        .values({ name, holder, expires_at: now + ttlMs })
        .onConflict((oc) =>
          oc
            .column('name')
            .doUpdateSet((eb) => ({ holder: eb.ref('excluded.holder'), expires_at: eb.ref('excluded.expires_at') }))
            .where((eb) => eb.or([eb('leases.holder', '=', holder), eb('leases.expires_at', '<', now)])),
        )
        .returning('holder')
        .executeTakeFirst();
      return row?.holder === holder;
    },
    /** Gives `name` up at once if `holder` holds it (a clean stop: the next instance need not wait for expiry). */
    async release(name: string, holder: string): Promise<void> {
      await db.deleteFrom('leases').where('name', '=', name).where('holder', '=', holder).execute();
    },
    /** The leases whose name starts with `prefix` and that have not expired at `now`. */
    async listLive(prefix: string, now: number): Promise<{ name: string; holder: string }[]> {
      return db
        .selectFrom('leases')
        .select(['name', 'holder'])
        .where(sql<string>`substr(name, 1, ${prefix.length})`, '=', prefix)
        .where('expires_at', '>=', now)
        .execute();
    },
    async get(name: string): Promise<{ holder: string; expiresAt: number } | undefined> {
      const row = await db.selectFrom('leases').select(['holder', 'expires_at']).where('name', '=', name).executeTakeFirst();
      return row && { holder: row.holder, expiresAt: row.expires_at };
    },
  };
}
