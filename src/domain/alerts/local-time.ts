/**
 * `YYYY-MM-DDTHH:MM:SS` in an IANA time zone, no offset (seed 000 alert record). Every alert change is formatted
 * this way (the alert feed, webhook events), and `formatToParts` costs several microseconds a call, so the zone's
 * offset is remembered per quarter hour (offsets and their changes fall on quarter hours) and the rest is arithmetic.
 * A quarter hour whose two ends have different offsets (a change inside it) is formatted by Intl each time.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();
const offsets = new Map<string, Map<number, number | null>>();
const quarterMs = 15 * 60_000;

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  return formatter;
}

function formatWithIntl(ms: number, timeZone: string): string {
  const parts = Object.fromEntries(
    formatterOf(timeZone)
      .formatToParts(new Date(ms))
      .map((part) => [part.type, part.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

/** The zone's offset from UTC at `ms`, in ms (seconds precision, as Intl gives it). */
function offsetAt(ms: number, timeZone: string): number {
  const wholeSecond = Math.floor(ms / 1000) * 1000;
  const local = formatWithIntl(wholeSecond, timeZone);
  return Date.parse(`${local}Z`) - wholeSecond;
}

/** The offset that holds through the whole quarter hour of `ms`, or null when it changes inside it. */
function quarterOffset(ms: number, timeZone: string): number | null {
  let byQuarter = offsets.get(timeZone);
  if (!byQuarter) offsets.set(timeZone, (byQuarter = new Map()));
  const quarter = Math.floor(ms / quarterMs);
  let offset = byQuarter.get(quarter);
  if (offset === undefined) {
    const start = offsetAt(quarter * quarterMs, timeZone);
    offset = start === offsetAt(quarter * quarterMs + quarterMs - 1, timeZone) ? start : null;
    // Times come in near now: a few quarters are live at once; an old export's run is bounded all the same.
    if (byQuarter.size >= 1_000) byQuarter.clear();
    byQuarter.set(quarter, offset);
  }
  return offset;
}

const two = (n: number) => (n < 10 ? `0${n}` : String(n));

export function formatLocalDateTime(ms: number, timeZone: string): string {
  const offset = quarterOffset(ms, timeZone);
  if (offset === null) return formatWithIntl(ms, timeZone);
  const d = new Date(Math.floor(ms / 1000) * 1000 + offset);
  const year = d.getUTCFullYear();
  // Intl writes the years 1 to 9999 with four digits; outside them the exact form is Intl's.
  if (year < 1 || year > 9999) return formatWithIntl(ms, timeZone);
  return `${String(year).padStart(4, '0')}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())}T${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}`;
}
