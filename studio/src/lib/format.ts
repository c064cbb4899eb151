/**
 * How the studio writes times and numbers: in the browser's locale and time zone. Platform times are Unix seconds
 * (tsmTs, alert period bounds); null stays visible as a dash rather than a wrong date.
 */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

export function formatTime(unixSeconds: number | null | undefined): string {
  return unixSeconds === null || unixSeconds === undefined ? '—' : dateTime.format(new Date(unixSeconds * 1000));
}

/** "3 minutes ago", from `nowMs` (pass a ticking value to keep it current). */
export function formatAgo(unixSeconds: number | null | undefined, nowMs: number = Date.now()): string {
  if (unixSeconds === null || unixSeconds === undefined) return 'never';
  const seconds = Math.round(unixSeconds - nowMs / 1000);
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
