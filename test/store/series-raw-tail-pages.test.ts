import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { rawTailPageSize } from '../../src/store/rollups/raw-reads.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { d0, hour, rollupStoreWith } from '../helpers/rollup-store.js';

after(cleanupStores);

// A thing's raw messages after its rollup watermark are folded into hours when read, page by page (never a year of
// rows at once, on the event loop on PostgreSQL): a page that fills keeps its whole hours and the next starts at its
// last hour; an hour holding more than a page is read whole.
const crowded = rawTailPageSize + 2000;
const range = { tsmId: 12100, field: 'temp', fromHour: 0, toHour: 2 ** 40 };

for (const target of storeTargets) {
  describe(`a raw tail longer than a page on ${target.name}`, { skip: target.skip }, () => {
    test('every hour is folded once, whole: one crowded hour beyond a page, then hours spread over the next pages', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        const messages: Record<string, unknown>[] = [];
        for (let i = 0; i < crowded; i++) messages.push({ tsmId: 12100, tsmTs: d0 + (i % hour), tsmTuid: 'P-1', temp: i });
        for (let s = hour; s < 4 * hour; s++) messages.push({ tsmId: 12100, tsmTs: d0 + s, tsmTuid: 'P-1', temp: 1 });
        for (let at = 0; at < messages.length; at += 1000) await s.commit(messages.slice(at, at + 1000));
        const hours = await s.store.rollups.hours({ tuid: 'P-1' }, range);
        assert.deepEqual(
          hours.map(({ hourStart, count, min, max, sum }) => ({ hourStart, count, min, max, sum })),
          [
            { hourStart: d0, count: crowded, min: 0, max: crowded - 1, sum: (crowded * (crowded - 1)) / 2 },
            ...[1, 2, 3].map((n) => ({ hourStart: d0 + n * hour, count: hour, min: 1, max: 1, sum: hour })),
          ],
        );
        assert.deepEqual(await s.store.rollups.counts({ tuid: 'P-1' }, range, 0), {
          hours: 4,
          days: 1,
          rawPoints: crowded + 3 * hour,
        });
      } finally {
        await s.close();
      }
    });
  });
}
