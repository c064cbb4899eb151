import { timeZone } from './time-zone.svelte';

/**
 * How the studio writes times and numbers: in the browser's locale, and in the zone the user chose (the browser's or
 * the platform's ALERT_TIMEZONE, lib/time-zone.svelte.ts), always with that zone's name, so no time on a page is
 * ambiguous. Platform times are Unix seconds (tsmTs, alert period bounds); null stays visible as a dash rather than a
 * wrong date.
 */
const formats = new Map<string, Intl.DateTimeFormat>();
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

function dateTimeIn(zone: string): Intl.DateTimeFormat {
  let format = formats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat(undefined, {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      timeZone: zone,
      timeZoneName: 'short',
    });
    formats.set(zone, format);
  }
  return format;
}

/** A time with its zone ("Mar 30, 2026, 14:00:05 UTC"), in the zone chosen in the header. */
export function formatTime(unixSeconds: number | null | undefined): string {
  return unixSeconds === null || unixSeconds === undefined ? '—' : dateTimeIn(timeZone.zone).format(new Date(unixSeconds * 1000));
}

/** Below this many seconds, in either direction, a time is "just now". */
const justNowS = 10;

/**
 * "3 minutes ago", from `nowMs` (pass a ticking value to keep it current). Never in the future: a device's clock or
 * the browser's may run a little ahead of the platform's, and "in 2 seconds" would read as nonsense; such times, and
 * the last few seconds, are "just now".
 */
export function formatAgo(unixSeconds: number | null | undefined, nowMs: number = Date.now()): string {
  if (unixSeconds === null || unixSeconds === undefined) return 'never';
  const seconds = Math.round(unixSeconds - nowMs / 1000);
  if (seconds > -justNowS) return 'just now';
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86_400],
    ['hour', 3_600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  }
  return relative.format(seconds, 'second');
}

export function formatNumber(value: number | null | undefined, maximumFractionDigits = 2): string {
  return value === null || value === undefined ? '—' : value.toLocaleString(undefined, { maximumFractionDigits });
}

export function formatPercent(share: number | null | undefined): string {
  return share === null || share === undefined ? '—' : `${(share * 100).toLocaleString(undefined, { maximumFractionDigits: 1 })} %`;
}

/** Unix seconds of a `datetime-local` input's value (local time), or undefined when empty. */
export function fromLocalInput(value: string): number | undefined {
  return value ? Math.floor(new Date(value).getTime() / 1000) : undefined;
}

/** A `datetime-local` input's value for Unix seconds, in local time. */
export function toLocalInput(unixSeconds: number): string {
  const date = new Date(unixSeconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
