import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { exampleMessage } from '../../../src/catalog/index.js';
import { extractNumericFields, hourStartOf, rollupLimits } from '../../../src/domain/series/rollup-rules.js';
import { RollupBatch } from '../../../src/store/batch-writer/rollup-batch.js';

const names = (message: Record<string, unknown>) => extractNumericFields(message).map((f) => `${f.name}=${f.value}`);

describe('extractNumericFields: which values are rolled up', () => {
  const cases: [what: string, message: Record<string, unknown>, expected: string[]][] = [
    ['catalog fields, in order', { tsmId: 12100, tsmEv: 10, tsmTs: 5, tsmTuid: 'T', temp: 21.5, humd: 40 }, ['temp=21.5', 'humd=40']],
    ['unknown fields alike', { tsmId: 99999, tsmTs: 5, carbonDioxide: 412 }, ['carbonDioxide=412']],
    [
      'the envelope and deploymentGroupId are not fields',
      { tsmId: 1, tsmEv: 2, tsmTs: 3, tsmGw: 'G', tsmDstTuid: 'D', transactionId: 7, deploymentGroupId: 'x' },
      [],
    ],
    [
      'nested objects by dotted path',
      { position: { lat: 60.1, lon: 24.9, fix: { hdop: 0.9 } } },
      ['position.lat=60.1', 'position.lon=24.9', 'position.fix.hdop=0.9'],
    ],
    ['an envelope name nested is a field', { inner: { tsmTs: 4 } }, ['inner.tsmTs=4']],
    ['strings, booleans, null and arrays are skipped', { s: '1', b: true, n: null, a: [1, 2], ok: 0 }, ['ok=0']],
    ['deeper than three levels is skipped', { a: { b: { c: { d: 1, e: { f: 2 } } } } }, ['a.b.c.d=1']],
    ['negative and integer values', { delta: -3, count: 12 }, ['delta=-3', 'count=12']],
  ];
  for (const [what, message, expected] of cases) test(what, () => assert.deepEqual(names(message), expected));

  test('a message yields at most maxFieldsPerMessage fields; a name past maxFieldNameLength is skipped', () => {
    const wide = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`f${i}`, i]));
    assert.equal(extractNumericFields(wide).length, rollupLimits.maxFieldsPerMessage);
    const long = 'x'.repeat(rollupLimits.maxFieldNameLength);
    assert.deepEqual(names({ [long]: 1, [`${long}y`]: 2 }), [`${long}=1`]);
  });

  test("every catalog example's numeric fields come out (12100: airp, humd, temp, lght)", () => {
    assert.deepEqual(
      extractNumericFields(exampleMessage(12100) as unknown as Record<string, unknown>).map((f) => f.name),
      ['airp', 'humd', 'temp', 'lght'],
    );
  });

  test('hours are UTC hours of tsmTs; a fraction is floored', () => {
    assert.equal(hourStartOf(1_700_000_000), 1_699_999_200);
    assert.equal(hourStartOf(1_699_999_200), 1_699_999_200);
    assert.equal(hourStartOf(1_699_999_199.9), 1_699_995_600);
  });
});

describe('RollupBatch: pre-aggregation per bucket', () => {
  test('readings of one thing-hour fold into one row; group rows per group at arrival (null: unassigned)', () => {
    const batch = new RollupBatch();
    batch.add('acme', 'T-1', null, 12100, 7230, 'temp', 22, true);
    batch.add('acme', 'T-1', null, 12100, 7210, 'temp', 20, true);
    batch.add('acme', 'T-2', 'north', 12100, 7220, 'temp', 30, true);
    batch.add('acme', 'T-1', null, 12100, 10_800, 'temp', 5, true);
    assert.deepEqual(
      batch.thingRows(true).map((r) => [r.tuid, r.hourStart, r.count, r.min, r.max, r.sum, r.first, r.firstTs, r.last, r.lastTs]),
      [
        ['T-1', 10_800, 1, 5, 5, 5, 5, 10_800, 5, 10_800],
        ['T-1', 7200, 2, 20, 22, 42, 20, 7210, 22, 7230],
        ['T-2', 7200, 1, 30, 30, 30, 30, 7220, 30, 7220],
      ],
    );
    assert.deepEqual(
      batch.groupRows(true).map((r) => [r.groupId, r.hourStart, r.count, r.first, r.last]),
      [
        ['north', 7200, 1, 30, 30],
        ['unassigned', 10_800, 1, 5, 5],
        ['unassigned', 7200, 2, 20, 22],
      ],
    );
  });

  test('ties on time: first keeps the earlier arrival, last takes the later one', () => {
    const batch = new RollupBatch();
    batch.add('acme', 'T-1', null, 1, 100, 'v', 1, true);
    batch.add('acme', 'T-1', null, 1, 100, 'v', 2, true);
    const [row] = batch.thingRows();
    assert.deepEqual([row!.first, row!.last], [1, 2]);
  });
});
