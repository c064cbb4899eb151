/**
 * The runs of series reads that carry etags (see PointRun): a compacted day whole in the range and untouched by later
 * messages, and a thing's raw hour. An etag stays while the points stay and changes when they change; a run whose
 * etag the caller holds is answered by its count alone; consecutive days at 1d that only compacted rows answer are one
 * such run. On both stores.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { HourRun, KnownRuns, RawRun } from '../../src/domain/series/series-types.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { d0, day, hour, reading, rollupStoreWith } from '../helpers/rollup-store.js';

after(cleanupStores);

const thing = { tuid: 'E-1' };
const range = { tsmId: 12100, field: 'temp', fromHour: d0, toHour: d0 + 3 * day };
const nothing: KnownRuns = () => undefined;
const holding =
  (runs: readonly (HourRun | RawRun)[]): KnownRuns =>
  (etag) => {
    const run = runs.find((r) => r.etag === etag);
    if (!run) return undefined;
    const held = 'hours' in run ? run.hours : run.messages;
    return held === null ? (run as { count: number }).count : held.length;
  };
const etags = (runs: readonly (HourRun | RawRun)[]) => runs.map((run) => run.etag);

for (const target of storeTargets) {
  describe(`series runs with etags on ${target.name}`, { skip: target.skip }, () => {
    test('a compacted day keeps its etag until its hours change; a held day is answered by its count; a touched or cut day has none', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        // Two whole days of readings, compacted; the third day raw.
        const messages = [];
        for (let h = 0; h < 60; h++) messages.push(reading(thing.tuid, d0 + h * hour + 60, h % 9));
        await s.commit(messages);
        await s.compact(d0 + 2 * day);
        const cold = await s.store.rollups.hourRuns(thing, range, nothing);
        assert.equal(cold.length, 3, 'two days with etags, then the raw hours');
        const [first, second, rest] = cold;
        assert.ok(first!.etag && second!.etag && first!.etag !== second!.etag);
        assert.equal(first!.hours?.length, 24);
        assert.equal(rest!.etag, null);
        assert.equal(rest!.hours?.length, 12);
        // The same read again: the same etags. Holding them, the days come as counts, the rest as before.
        assert.deepEqual(etags(await s.store.rollups.hourRuns(thing, range, nothing)), etags(cold));
        const warm = await s.store.rollups.hourRuns(thing, range, holding(cold));
        assert.deepEqual(warm.slice(0, 2), [
          { hours: null, etag: first!.etag, count: 24 },
          { hours: null, etag: second!.etag, count: 24 },
        ]);
        assert.deepEqual(warm[2], rest);
        // flattened, the hours read alone are the runs' hours.
        assert.deepEqual(
          await s.store.rollups.hours(thing, range),
          cold.flatMap((run) => run.hours!),
        );

        // A range that cuts the first day: that day is merged, without an etag.
        const cut = await s.store.rollups.hourRuns(thing, { ...range, fromHour: d0 + 5 * hour }, holding(cold));
        assert.equal(cut[0]!.etag, null);
        assert.equal(cut[0]!.hours?.length, 19);
        assert.equal(cut[1]!.etag, second!.etag);

        // A late message for the first day (the watermark is past it): rolled up hourly, the day is touched and read
        // whole, merged, until the next compaction folds it in under a new etag; the second day keeps its own.
        await s.commit([reading(thing.tuid, d0 + 2 * hour + 5, 100)]);
        const touched = await s.store.rollups.hourRuns(thing, range, holding(cold));
        assert.equal(touched[0]!.etag, null);
        assert.equal(touched[0]!.hours?.find((h) => h.hourStart === d0 + 2 * hour)?.count, 2);
        assert.equal(touched[1]!.etag, second!.etag);
        await s.compact(d0 + 2 * day);
        const folded = await s.store.rollups.hourRuns(thing, range, holding(cold));
        assert.ok(folded[0]!.etag !== null && folded[0]!.etag !== first!.etag, 'the day written again has a new etag');
        assert.equal(folded[0]!.hours?.find((h) => h.hourStart === d0 + 2 * hour)?.max, 25);
        assert.deepEqual(folded[1], { hours: null, etag: second!.etag, count: 24 });
      } finally {
        await s.close();
      }
    });

    test('days at 1d: the days only their compacted rows answer are one run with an etag, held as a count; a touched or cut day is not in it', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        // Three whole days of readings, compacted; half of the fourth day raw.
        const messages = [];
        for (let h = 0; h < 84; h++)
          messages.push(reading(thing.tuid, d0 + h * hour + 60, h % 9), reading(thing.tuid, d0 + h * hour + 120, 7));
        await s.commit(messages);
        await s.compact(d0 + 3 * day);
        const year = { ...range, toHour: d0 + 4 * day - 1 };
        const cold = await s.store.rollups.dayRuns(thing, year, nothing);
        assert.equal(cold.length, 2, 'the compacted days, then the raw day');
        const [days, rest] = cold;
        assert.match(days!.etag ?? '', /^days:/);
        assert.deepEqual(
          days!.hours?.map((d) => [d.hourStart, d.count]),
          [0, 1, 2].map((n) => [d0 + n * day, 48]),
        );
        assert.deepEqual([rest!.etag, rest!.hours?.map((d) => [d.hourStart, d.count])], [null, [[d0 + 3 * day, 24]]]);
        assert.deepEqual(etags(await s.store.rollups.dayRuns(thing, year, nothing)), etags(cold));
        assert.deepEqual(await s.store.rollups.dayRuns(thing, year, holding(cold)), [{ hours: null, etag: days!.etag, count: 3 }, rest]);
        assert.deepEqual(
          await s.store.rollups.days(thing, year),
          cold.flatMap((run) => run.hours!),
        );
        // A group's days, from its own tiers (its fourth day from hourly rows), answer the same figures.
        const group = await s.store.rollups.dayRuns({ organizationId: 'acme', groupId: null }, year, nothing);
        assert.deepEqual(
          group.flatMap((run) => run.hours!),
          cold.flatMap((run) => run.hours!),
        );
        assert.match(group[0]!.etag ?? '', /^days:/);
        assert.notEqual(group[0]!.etag, days!.etag);

        // A range that cuts the third day: the first two are a run of their own, the third its hours up to there.
        const cut = await s.store.rollups.dayRuns(thing, { ...year, toHour: d0 + 2 * day + 5 * hour }, holding(cold));
        assert.equal(cut.length, 2);
        assert.ok(cut[0]!.etag !== null && cut[0]!.etag !== days!.etag && cut[0]!.hours?.length === 2);
        assert.deepEqual([cut[1]!.etag, cut[1]!.hours?.map((d) => d.count)], [null, [12]]);

        // A late message for the second day: the days around it are runs of their own, the second read and merged;
        // compacted again, the second day has a new token and the three days a new etag.
        await s.commit([reading(thing.tuid, d0 + day + 2 * hour + 5, 100)]);
        const touched = await s.store.rollups.dayRuns(thing, year, holding(cold));
        assert.deepEqual(
          touched.map((run) => [run.etag === null ? null : 'etag', run.hours?.map((d) => d.count)]),
          [
            ['etag', [48]],
            [null, [49]],
            ['etag', [48]],
            [null, [24]],
          ],
        );
        assert.equal(touched[1]!.hours![0]!.max, 25);
        await s.compact(d0 + 3 * day);
        const folded = await s.store.rollups.dayRuns(thing, year, holding(cold));
        assert.ok(folded[0]!.etag?.startsWith('days:') && folded[0]!.etag !== days!.etag);
        assert.deepEqual(
          folded[0]!.hours?.map((d) => d.count),
          [48, 49, 48],
        );
      } finally {
        await s.close();
      }
    });

    test('raw hours: the etag is made of the hour’s messages, a held hour is not read, a new message changes its hour only', async () => {
      const s = await rollupStoreWith(await target.createUrl());
      try {
        const messages = [];
        for (let m = 0; m < 150; m++) messages.push(reading(thing.tuid, d0 + m * 60 + 0.5, m % 11));
        // A message of another id in the same hours, and one without the field: neither is a point.
        messages.push(
          { tsmId: 12101, tsmTs: d0 + 30, tsmTuid: thing.tuid, temp: 1 },
          { tsmId: 12100, tsmTs: d0 + 700, tsmTuid: thing.tuid, humd: 3 },
        );
        await s.commit(messages);
        const read = { tsmId: 12100, field: 'temp', from: d0 + 600, to: d0 + 3 * hour, limit: 1000 };
        const cold = (await s.store.rollups.rawRuns(thing, read, nothing))!;
        assert.deepEqual(
          cold.map((run) => run.messages?.length),
          [51, 60, 30],
          'the first hour from 10 minutes in (its message without temp included), the last hour’s first half',
        );
        assert.deepEqual(etags((await s.store.rollups.rawRuns(thing, read, nothing))!), etags(cold));
        const warm = (await s.store.rollups.rawRuns(thing, read, holding(cold)))!;
        assert.deepEqual(
          warm,
          etags(cold).map((etag, i) => ({ messages: null, etag, count: cold[i]!.messages!.length })),
        );
        // Another field of the same messages, or a range that cuts the first hour elsewhere: other etags.
        const humd = (await s.store.rollups.rawRuns(thing, { ...read, field: 'humd' }, nothing))!;
        assert.equal(etags(humd).filter((etag) => etags(cold).includes(etag)).length, 0);
        const later = (await s.store.rollups.rawRuns(thing, { ...read, from: d0 + 660 }, nothing))!;
        assert.notEqual(later[0]!.etag, cold[0]!.etag);
        assert.equal(later[1]!.etag, cold[1]!.etag);
        // A message arrives in the second hour: that hour's etag changes, read again; the others stay held.
        await s.commit([reading(thing.tuid, d0 + hour + 90, 7)]);
        const after = (await s.store.rollups.rawRuns(thing, read, holding(cold)))!;
        assert.equal(after[0]!.messages, null);
        assert.notEqual(after[1]!.etag, cold[1]!.etag);
        assert.equal(after[1]!.messages?.length, 61);
        assert.equal(after[2]!.messages, null);
        // More messages than the limit: no runs (the caller reads without them).
        assert.equal(await s.store.rollups.rawRuns(thing, { ...read, limit: 100 }, nothing), undefined);
      } finally {
        await s.close();
      }
    });
  });
}
