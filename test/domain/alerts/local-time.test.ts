/**
 * Alert times in ALERT_TIMEZONE: the arithmetic path (an offset remembered per quarter hour) must write exactly what
 * Intl writes, through daylight-saving changes, half-hour and 45-minute zones, and local mean time before 1900.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatLocalDateTime } from '../../../src/domain/alerts/local-time.js';

const zones = ['UTC', 'Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'Pacific/Chatham', 'Africa/Casablanca'];

const formats = new Map<string, Intl.DateTimeFormat>();
function byIntl(ms: number, timeZone: string): string {
  const format =
    formats.get(timeZone) ??
    new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
  formats.set(timeZone, format);
  const parts = Object.fromEntries(format.formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return `${parts.year}-${parts.month}-${parts.day}T${parts.hour}:${parts.minute}:${parts.second}`;
}

test('every time written as Intl writes it, across a century and around each change of 2026', () => {
  for (const zone of zones) {
    const mismatches: string[] = [];
    const check = (ms: number) => {
      const ours = formatLocalDateTime(ms, zone);
      const theirs = byIntl(ms, zone);
      if (ours !== theirs) mismatches.push(`${new Date(ms).toISOString()}: ${ours} against ${theirs}`);
    };
    // Irregular steps over 150 years: local mean time (offsets in odd seconds), then modern rules.
    for (let ms = Date.UTC(1890, 0, 1), i = 0; ms < Date.UTC(2040, 0, 1); ms += 86_400_000 * 17 + (i++ % 97) * 12_377) check(ms);
    // Every 37 minutes through 2026: each change of the year is passed with times on both sides.
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 2_222_000) check(ms);
    // The last second before a change and the first after it (Berlin: 2026-03-29 01:00 UTC).
    check(Date.UTC(2026, 2, 29, 0, 59, 59, 999));
    check(Date.UTC(2026, 2, 29, 1, 0, 0, 0));
    assert.deepEqual(mismatches.slice(0, 5), [], zone);
  }
});

test('a change inside a quarter hour is still exact on both sides', () => {
  // Berlin 2026-10-25: 01:00 UTC goes from +2 to +1.
  assert.equal(formatLocalDateTime(Date.UTC(2026, 9, 25, 0, 59, 59), 'Europe/Berlin'), '2026-10-25T02:59:59');
  assert.equal(formatLocalDateTime(Date.UTC(2026, 9, 25, 1, 0, 0), 'Europe/Berlin'), '2026-10-25T02:00:00');
});
