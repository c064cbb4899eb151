import type { HourlyRollup } from '../../domain/series/series-types.js';

/** Values per packed hour: hour_start, count, min, max, sum, first, first_ts, last, last_ts. */
const perHour = 9;

/** A compacted day's hours (oldest first) as the `hourly` column stores them: float64 little-endian, nine per hour. */
export function encodeHours(hours: readonly HourlyRollup[]): Buffer {
  const values = new Float64Array(hours.length * perHour);
  hours.forEach((h, i) => values.set([h.hourStart, h.count, h.min, h.max, h.sum, h.first, h.firstTs, h.last, h.lastTs], i * perHour));
  // Float64Array is in the machine's byte order; every platform Node runs on is little-endian, and decodeHours checks.
  return Buffer.from(values.buffer);
}

const littleEndian = new Uint8Array(new Float64Array([1]).buffer)[7] === 0x3f;

/** The hours of an `hourly` column, oldest first, those starting in [from, to] (all by default), appended to `into`. */
export function decodeHours(packed: Uint8Array, from = -Infinity, to = Infinity, into: HourlyRollup[] = []): HourlyRollup[] {
  if (!littleEndian) throw new Error('compacted rollups are stored little-endian; this machine is not');
  if (packed.byteLength % (perHour * 8) !== 0) throw new Error(`a compacted day of ${packed.byteLength} bytes is not whole hours`);
  // One copy into an aligned buffer: the driver's Buffer may start at any byte offset.
  const values = new Float64Array(packed.byteLength / 8);
  new Uint8Array(values.buffer).set(packed);
  for (let i = 0; i < values.length; i += perHour) {
    if (values[i]! < from || values[i]! > to) continue;
    into.push({
      hourStart: values[i]!,
      count: values[i + 1]!,
      min: values[i + 2]!,
      max: values[i + 3]!,
      sum: values[i + 4]!,
      first: values[i + 5]!,
      firstTs: values[i + 6]!,
      last: values[i + 7]!,
      lastTs: values[i + 8]!,
    });
  }
  return into;
}
