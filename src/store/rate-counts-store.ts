import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type RateCountsStore = ReturnType<typeof rateCountsStore>;

/** Request counts per instance, limiter, key and one-minute window (migration 0014), shared by the instances. */
export function rateCountsStore(db: Kysely<Schema>) {
  return {
    /** This instance's current counts for the keys that changed (a count replaces the last one published). */
    async publish(
      instanceId: string,
      windowStart: number,
      limiter: string,
      counts: readonly (readonly [key: string, count: number])[],
    ): Promise<void> {
      if (counts.length === 0) return;
      await db
        .insertInto('rate_counts')
        .values(counts.map(([key, count]) => ({ window_start: windowStart, limiter, key, instance_id: instanceId, count })))
        .onConflict((oc) =>
          oc.columns(['window_start', 'limiter', 'key', 'instance_id']).doUpdateSet((eb) => ({ count: eb.ref('excluded.count') })),
        )
        .execute();
    },
    /** The other instances' counts of `keys` in the window, summed per key. */
    async othersTotals(instanceId: string, windowStart: number, limiter: string, keys: readonly string[]): Promise<Map<string, number>> {
      if (keys.length === 0) return new Map();
      const rows = await db
        .selectFrom('rate_counts')
        .select(['key', (eb) => eb.fn.sum<number | string>('count').as('total')])
        .where('window_start', '=', windowStart)
        .where('limiter', '=', limiter)
        .where('key', 'in', keys)
        .where('instance_id', '<>', instanceId)
        .groupBy('key')
        .execute();
      return new Map(rows.map((row) => [row.key, Number(row.total)]));
    },
    /** Drops the windows that ended before `before`. */
    async prune(before: number): Promise<void> {
      await db.deleteFrom('rate_counts').where('window_start', '<', before).execute();
    },
  };
}
