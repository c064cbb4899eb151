/** Latency percentiles in bounded memory. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LatencyRecorder } from '../../src/simulator/latency-recorder.js';
import { createRandom } from '../../src/simulator/random.js';

test('p50, p99 and max of known latencies; nothing recorded is all zeros', () => {
  assert.deepEqual(new LatencyRecorder().summarize(), { p50: 0, p99: 0, max: 0 });
  const recorder = new LatencyRecorder();
  for (let ms = 100; ms >= 1; ms -= 1) recorder.record(ms);
  assert.deepEqual(recorder.summarize(), { p50: 50, p99: 99, max: 100 });
});

test('beyond its capacity the sample stays representative and the maximum exact', () => {
  const recorder = new LatencyRecorder(createRandom(1), 1_000);
  for (let index = 0; index < 100_000; index += 1) recorder.record(index % 100);
  recorder.record(5_000);
  const summary = recorder.summarize();
  assert.ok(Math.abs(summary.p50 - 50) <= 5, `p50 ${summary.p50}`);
  assert.ok(summary.p99 >= 95 && summary.p99 <= 99, `p99 ${summary.p99}`);
  assert.equal(summary.max, 5_000);
});
