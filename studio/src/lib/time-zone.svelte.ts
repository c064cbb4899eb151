import { config } from './config';

/** Which zone the studio writes times in: the browser's, or the platform's ALERT_TIMEZONE (the alert e-mails' and feeds'). */
export type ZoneChoice = 'browser' | 'platform';

const storageKey = 'thingdesk.timeZone';

/**
 * The one time convention of the studio (SPEC section 16): every time is written with its zone, in the zone the user
 * picked in the header (kept in localStorage, so every tab and the next visit agree). Reading `zone` inside a
 * template makes that text follow the switch.
 */
class TimeZoneChoice {
  choice = $state<ZoneChoice>(readChoice());

  /** The IANA zone times are written in now. */
  get zone(): string {
    return this.choice === 'platform' ? config.alertTimeZone : browserZone();
  }

  set(choice: ZoneChoice): void {
    this.choice = choice;
    try {
      localStorage.setItem(storageKey, choice);
    } catch {
      // Storage refused (private mode): the choice lasts for this page.
    }
  }
}

function readChoice(): ZoneChoice {
  try {
    return localStorage.getItem(storageKey) === 'platform' ? 'platform' : 'browser';
  } catch {
    return 'browser';
  }
}

export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export const timeZone = new TimeZoneChoice();

/**
 * Unix seconds of a wall-clock date-time in the platform's ALERT_TIMEZONE (`2026-03-30T14:00:00`, no offset: how
 * alert records write their times), so it can be shown in either zone. The zone's offset at that moment is found by
 * formatting a first guess in the zone and correcting by the difference (twice, for the hour around a DST change).
 */
export function platformLocalToUnix(value: string): number | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2}))?/.exec(value);
  if (!match) return null;
  const [, y, mo, d, h, mi, s = '0'] = match;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  let guess = wall;
  for (let round = 0; round < 2; round++) guess = wall - (wallClockOf(guess, config.alertTimeZone) - guess);
  return Math.floor(guess / 1000);
}

/** The wall-clock time (as if it were UTC, in ms) that `ms` reads as in `zone`. */
function wallClockOf(ms: number, zone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const part = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(part('year'), part('month') - 1, part('day'), part('hour'), part('minute'), part('second'));
}
