import type { PointRun, SeriesPoint } from '../../domain/series/series-types.js';
import type { RunsReading } from './rendered-runs.js';

/** A number as JSON writes it (a non-finite one, a sum past the largest double, as null). */
const numberText = (value: number) => (Number.isFinite(value) ? String(value) : 'null');

/** One point as the response schema's Point, its members in the schema's order; a raw point's value is written once. */
function pointText(p: SeriesPoint): string {
  if (p.min === p.max && p.avg === p.min && p.first === p.min && p.last === p.min) {
    const v = numberText(p.min);
    return `{"t":${numberText(p.t)},"count":${p.count},"min":${v},"max":${v},"avg":${v},"first":${v},"last":${v}}`;
  }
  return (
    `{"t":${numberText(p.t)},"count":${p.count},"min":${numberText(p.min)},"max":${numberText(p.max)},` +
    `"avg":${numberText(p.avg)},"first":${numberText(p.first)},"last":${numberText(p.last)}}`
  );
}

function pointsText(points: readonly SeriesPoint[]): string {
  let text = '';
  for (let i = 0; i < points.length; i++) text += i === 0 ? pointText(points[i]!) : `,${pointText(points[i]!)}`;
  return text;
}

/**
 * A series answer, `{"data": {...head, "points": [...]}}`, as bytes in parts (in order; see sendBuffers). Written
 * here rather than by the route's response schema: a long answer's time went mostly into turning numbers into text
 * (a year of hours is 61,000 of them), and a run with an etag has the same text every time: it is taken from
 * `runsKept`, or made and kept there. `head` is everything but the points (strings and numbers: JSON.stringify
 * writes them as the schema would).
 */
export function seriesAnswerJson(head: Record<string, unknown>, runs: readonly PointRun[], runsKept: RunsReading): Buffer[] {
  const whole = JSON.stringify({ data: { ...head, points: [] } });
  const closing = ']}}';
  const parts: Buffer[] = [Buffer.from(whole.slice(0, whole.length - closing.length))];
  let plain = '';
  let first = true;
  const comma = Buffer.from(',');
  for (const run of runs) {
    if (run.points !== null && run.points.length === 0) continue;
    if (run.etag === null) {
      plain += (first ? '' : ',') + pointsText(run.points!);
      first = false;
      continue;
    }
    if (plain !== '') parts.push(Buffer.from(plain));
    plain = '';
    let text: Buffer;
    if (run.points === null) text = runsKept.held(run.etag);
    else {
      text = Buffer.from(pointsText(run.points));
      runsKept.keep(run.etag, text, run.points.length);
    }
    if (!first) parts.push(comma);
    parts.push(text);
    first = false;
  }
  parts.push(Buffer.from(plain + closing));
  return parts;
}
