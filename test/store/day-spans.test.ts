/** How a `1d` read cuts its days around the ones later tiers touch (store/rollups/day-runs.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { daySpans } from '../../src/store/rollups/day-runs.js';

const day = 86_400;
const at = (n: number) => n * day;
const spans = (first: number, last: number, touched: number[]) =>
  daySpans(at(first), at(last), touched.map(at)).map((span) => [span.first / day, span.last / day, span.clean]);

test('no touched day: one clean span over the range', () => {
  assert.deepEqual(spans(0, 364, []), [[0, 364, true]]);
  assert.deepEqual(spans(5, 5, []), [[5, 5, true]]);
});

test('touched days are spans of their own, consecutive ones together, between clean ones', () => {
  assert.deepEqual(spans(0, 9, [0]), [
    [0, 0, false],
    [1, 9, true],
  ]);
  assert.deepEqual(spans(0, 9, [3, 4, 5, 9]), [
    [0, 2, true],
    [3, 5, false],
    [6, 8, true],
    [9, 9, false],
  ]);
  assert.deepEqual(spans(0, 9, [2, 7]), [
    [0, 1, true],
    [2, 2, false],
    [3, 6, true],
    [7, 7, false],
    [8, 9, true],
  ]);
});

test('days touched all over: the range is one span, not clean', () => {
  const scattered = Array.from({ length: 9 }, (_, n) => 2 * n + 1);
  assert.deepEqual(spans(0, 30, scattered), [[0, 30, false]]);
  assert.equal(daySpans(0, at(30), scattered.slice(0, 8).map(at)).length, 17, 'eight scattered touched days are still cut around');
});
