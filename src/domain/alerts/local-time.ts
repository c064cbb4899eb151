/**
 * `YYYY-MM-DDTHH:MM:SS` in an IANA time zone, no offset (seed 000 alert record). Formatters are cached per zone:
 * building an Intl.DateTimeFormat costs far more than using one.
 */
const formatters = new Map<string, Intl.DateTimeFormat>();

export function formatLocalDateTime(ms: number, timeZone: string): string {
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
  const parts = Object.fromEntries(formatter.formatToParts(new Date(ms)).map((part) => [part.type, part.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}
