/**
 * Compaction of the hourly rollups into days (migration 0017): every read answers the same before and after, a
 * late message for a compacted day is merged at read time and folded by the next compaction, and expiry and release
 * take compacted days too. On both stores.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { RollupRange, SeriesSubject } from '../../src/domain/series/series-types.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { d0, day, hour, reading, rollupStoreWith } from '../helpers/rollup-store.js';

after(cleanupStores);

type Store = Awaited<ReturnType<typeof rollupStoreWith>>['store'];

/** Every rollup read of a subject over ranges that cut days at both ends and at the raw boundary. */
async function everyRead(store: Store, subject: SeriesSubject) {
  const ranges: RollupRange[] = [
    { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + 3 * day },
    { tsmId: 12100, field: 'temp', fromHour: d0 + 5 * hour, toHour: d0 + day + 7 * hour },
  ];
  const reads = [];
  for (const range of ranges) {
    reads.push(await store.rollups.hours(subject, range));
    reads.push(await store.rollups.days(subject, { ...range, fromHour: range.fromHour - (range.fromHour % day) }));
    for (const rawFrom of [0, d0 + day + 3 * hour, d0 + 10 * day]) reads.push(await store.rollups.counts(subject, range, rawFrom));
  }
  return reads;
}

for (const target of storeTargets) {
  describe(`rollup compaction on ${target.name}`, { skip: target.skip }, () => {
    test('reads answer the same after the days that are over are compacted, across compaction pages', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        // 110 things with every hour of two days (more rows than one compaction page), and the third day begun.
        const things = Array.from({ length: 110 }, (_, i) => `C-${String(i).padStart(3, '0')}`);
        for (const tuid of things) {
          const messages = [];
          for (let h = 0; h < 50; h++) messages.push(reading(tuid, d0 + h * hour + (h % 7) * 60, (h * 13 + tuid.length) % 40));
          messages.push(reading(tuid, d0 + 5 * hour + 30, -3));
          await s.commit(messages);
        }
        const subjects: SeriesSubject[] = [{ tuid: 'C-000' }, { tuid: 'C-109' }, { organizationId: 'acme', groupId: null }];
        const before = await Promise.all(subjects.map((subject) => everyRead(s.store, subject)));
        assert.equal(await s.rows('thing_rollups'), 0, 'a new thing’s hours are rolled up from its raw messages');

        const scanned = await s.compact(d0 + 2 * day);
        assert.ok(scanned >= things.length * 48, `the pass read every message before the cutoff (${scanned})`);
        assert.equal(await s.rows('thing_rollups'), 0, 'the third day’s two hours stay raw');
        assert.equal(await s.rows('thing_rollup_days'), things.length * 2);
        assert.equal(await s.rows('group_rollup_days'), 2);
        assert.deepEqual(await Promise.all(subjects.map((subject) => everyRead(s.store, subject))), before);
        // A second pass finds nothing left to fold and changes nothing.
        await s.compact(d0 + 2 * day);
        assert.equal(await s.rows('thing_rollup_days'), things.length * 2);
        assert.deepEqual(await Promise.all(subjects.map((subject) => everyRead(s.store, subject))), before);
      } finally {
        await s.close();
      }
    });

    test('a late message for a compacted day corrects its hour and day at once, and the next compaction folds it in', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        await s.commit([reading('L-1', d0 + hour + 10, 8), reading('L-1', d0 + hour + 20, 12), reading('L-1', d0 + 9 * hour, 4)]);
        await s.compact(d0 + day);
        assert.equal(await s.rows('thing_rollups'), 0);
        // A range that ends before the compacted day's first reading has nothing of it.
        const early = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + 1800 };
        assert.deepEqual(await s.store.rollups.days({ tuid: 'L-1' }, early), []);
        assert.deepEqual(await s.store.rollups.hours({ tuid: 'L-1' }, early), []);
        assert.deepEqual(await s.store.rollups.counts({ tuid: 'L-1' }, early, 0), { hours: 0, days: 0, rawPoints: 0 });
        // Late: earlier than the hour's first, a new low, and an hour the day did not have. Rolled up at ingest (the
        // thing's watermark is past them); a message after the watermark is not, it stays raw.
        await s.commit([reading('L-1', d0 + hour + 5, -8), reading('L-1', d0 + 3 * hour, 40)]);
        assert.equal(await s.rows('thing_rollups'), 2);
        await s.commit([reading('L-1', d0 + day + hour, 4)]);
        assert.equal(await s.rows('thing_rollups'), 2);
        const range = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + day };
        const expectedHours = [
          { hourStart: d0 + hour, count: 3, min: -2, max: 3, sum: 3, first: -2, firstTs: d0 + hour + 5, last: 3, lastTs: d0 + hour + 20 },
          {
            hourStart: d0 + 3 * hour,
            count: 1,
            min: 10,
            max: 10,
            sum: 10,
            first: 10,
            firstTs: d0 + 3 * hour,
            last: 10,
            lastTs: d0 + 3 * hour,
          },
          { hourStart: d0 + 9 * hour, count: 1, min: 1, max: 1, sum: 1, first: 1, firstTs: d0 + 9 * hour, last: 1, lastTs: d0 + 9 * hour },
        ];
        const expectedDay = [
          { hourStart: d0, count: 5, min: -2, max: 10, sum: 14, first: -2, firstTs: d0 + hour + 5, last: 1, lastTs: d0 + 9 * hour },
        ];
        const check = async () => {
          assert.deepEqual(await s.store.rollups.hours({ tuid: 'L-1' }, range), expectedHours);
          assert.deepEqual(await s.store.rollups.days({ tuid: 'L-1' }, range), expectedDay);
          assert.deepEqual(await s.store.rollups.counts({ tuid: 'L-1' }, range, 0), { hours: 4, days: 1, rawPoints: 5 });
        };
        await check();
        await s.compact(d0 + day);
        assert.equal(await s.rows('thing_rollups'), 0);
        assert.deepEqual(await s.store.rollups.counts({ tuid: 'L-1' }, range, 0), { hours: 3, days: 1, rawPoints: 5 });
        assert.deepEqual(await s.store.rollups.hours({ tuid: 'L-1' }, range), expectedHours);
        assert.deepEqual(await s.store.rollups.days({ tuid: 'L-1' }, range), expectedDay);
      } finally {
        await s.close();
      }
    });

    test('a busy thing whose hour holds more messages than a step is compacted whole, over several steps', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        // 2,500 messages in one hour (a step reads about 2,000), then 1,500 in the next.
        const messages = Array.from({ length: 4000 }, (_, i) => reading('B-1', d0 + (i < 2500 ? i : 3600 + i - 2500), i % 17));
        for (let i = 0; i < messages.length; i += 1000) await s.commit(messages.slice(i, i + 1000));
        const range = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + day };
        const before = await s.store.rollups.hours({ tuid: 'B-1' }, range);
        assert.deepEqual(
          before.map((h) => h.count),
          [2500, 1500],
        );
        await s.compact(d0 + day);
        assert.equal(await s.rows('thing_rollup_days'), 1);
        assert.deepEqual(await s.store.rollups.hours({ tuid: 'B-1' }, range), before);
      } finally {
        await s.close();
      }
    });

    test('ingest racing with compaction: every stored message is rolled up exactly once', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        let sent = 0;
        let sum = 0;
        const ingest = (async () => {
          for (let round = 0; round < 30; round++) {
            // Spread over three hours, so some arrive before the watermark the compaction is moving and some after.
            const messages = Array.from({ length: 40 }, (_, i) => reading('R-1', d0 + (((round * 40 + i) * 277) % (3 * hour)), i));
            const result = await s.commit(messages);
            sent += result.stored.length;
            sum += result.stored.reduce((total, record) => total + ((record.message as { temp: number }).temp ?? 0), 0);
          }
        })();
        const compaction = (async () => {
          for (let round = 0; round < 30; round++) await s.compact(d0 + ((round % 3) + 1) * hour);
        })();
        await Promise.all([ingest, compaction]);
        const range = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + day };
        for (const stage of ['before', 'after'] as const) {
          if (stage === 'after') await s.compact(d0 + day);
          const hours = await s.store.rollups.hours({ tuid: 'R-1' }, range);
          assert.equal(
            hours.reduce((total, h) => total + h.count, 0),
            sent,
            `${stage} the last compaction`,
          );
          assert.equal(
            hours.reduce((total, h) => total + h.sum, 0),
            sum,
          );
        }
      } finally {
        await s.close();
      }
    });

    test('expiry removes a compacted day once all its hours are past, and releasing a thing removes its days', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        await s.commit([reading('E-1', d0 + hour, 4), reading('E-1', d0 + day + hour, 8)]);
        await s.compact(d0 + 2 * day);
        const range = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + 2 * day };
        // Mid-way through the second day: the first day goes (thing and group), the second stays whole.
        assert.equal(
          await s.store.rollups.expire('acme', d0 + day + 5 * hour, 100),
          4,
          'the figures and hours of the first day, thing and group',
        );
        assert.deepEqual(
          (await s.store.rollups.hours({ tuid: 'E-1' }, range)).map((h) => h.hourStart),
          [d0 + day + hour],
        );
        assert.ok(await s.store.things.release('acme', 'E-1'));
        assert.equal(await s.rows('thing_rollup_days'), 0);
        assert.equal(await s.rows('group_rollup_days'), 1, 'a group keeps its history');
      } finally {
        await s.close();
      }
    });
  });
}
