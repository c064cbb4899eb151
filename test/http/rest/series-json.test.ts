/**
 * The series answer's writer (series-json.ts) and the runs it keeps (rendered-runs.ts), without a server: every
 * answer, from runs made or kept, is byte for byte what JSON.stringify writes; the kept runs stay within their
 * budget, least recently used out first, and a run held by an answer outlives its eviction.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PointRun, SeriesPoint } from '../../../src/domain/series/series-types.js';
import { RenderedRuns } from '../../../src/http/rest/rendered-runs.js';
import { seriesAnswerJson } from '../../../src/http/rest/series-json.js';

const head = { tuid: 'J-"1"\u2028', tsmId: 12100, field: 'température', bucket: '1h', segments: [{ from: 0, to: 9, bucket: '1h' }] };
const awkward = [0, -0, 1e21, 1e-7, 5e-324, -1.7976931348623157e308, 0.1 + 0.2, 2 / 3, Infinity, -Infinity, 2 ** 70];

function randomPoint(i: number): SeriesPoint {
  const pick = () =>
    Math.random() < 0.3
      ? awkward[Math.floor(Math.random() * awkward.length)]!
      : (Math.random() - 0.5) * 10 ** Math.floor(Math.random() * 8);
  if (Math.random() < 0.4) {
    const v = pick();
    return { t: 1_790_000_000 + i * 60 + 0.25, count: 1, min: v, max: v, avg: v, first: v, last: v };
  }
  return {
    t: 1_790_000_000 + i * 3600,
    count: 1 + Math.floor(Math.random() * 60),
    min: pick(),
    max: pick(),
    avg: pick(),
    first: pick(),
    last: pick(),
  };
}

const bytes = (parts: Buffer[]) => Buffer.concat(parts).toString('utf8');

describe('series answer JSON', () => {
  test('made or kept, every answer is what JSON.stringify writes', () => {
    for (let round = 0; round < 200; round++) {
      const rendered = new RenderedRuns(1 << 20);
      let n = 0;
      const runs: PointRun[] = Array.from({ length: Math.floor(Math.random() * 6) }, (_, r) => ({
        points: Array.from({ length: Math.floor(Math.random() * 4) }, () => randomPoint(n++)),
        etag: Math.random() < 0.6 ? `e${round}-${r}` : null,
      }));
      const expected = JSON.stringify({ data: { ...head, points: runs.flatMap((run) => run.points!) } });
      assert.equal(bytes(seriesAnswerJson(head, runs, rendered.reading())), expected);
      // The runs with etags kept (those with points; an empty run is not written): held, answered by their count.
      const reading = rendered.reading();
      const held: PointRun[] = runs.map((run) => {
        const count = run.etag === null ? undefined : reading.known(run.etag);
        return count === undefined ? run : { points: null, etag: run.etag!, count };
      });
      assert.equal(bytes(seriesAnswerJson(head, held, reading)), expected);
    }
  });

  test('kept runs stay within the budget, least recently used out first; a held run outlives its eviction', () => {
    const text = (c: string) => Buffer.from(c.repeat(1000));
    const rendered = new RenderedRuns(3 * 1300);
    const first = rendered.reading();
    for (const etag of ['a', 'b', 'c']) first.keep(etag, text(etag), 1);
    assert.equal(rendered.size.runs, 3);
    const reading = rendered.reading();
    assert.equal(reading.known('a'), 1, "'a' used: now the most recent");
    reading.keep('d', text('d'), 2);
    assert.equal(rendered.size.runs, 3);
    assert.ok(rendered.size.bytes <= 3 * 1300);
    const later = rendered.reading();
    assert.equal(later.known('b'), undefined, "'b', least recently used, went");
    assert.equal(later.known('c'), 1);
    assert.equal(later.known('d'), 2);
    // 'a' is pushed out by newer runs, but the reading that held it still has its text.
    for (const etag of ['e', 'f', 'g']) later.keep(etag, text(etag), 1);
    assert.equal(rendered.reading().known('a'), undefined);
    assert.equal(reading.held('a').toString(), 'a'.repeat(1000));
    assert.throws(() => later.held('zz'), /did not know/);
    // No budget: nothing kept.
    const none = new RenderedRuns(0);
    none.reading().keep('a', text('a'), 1);
    assert.equal(none.size.runs, 0);
  });
});
