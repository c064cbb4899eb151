import type { Config } from '../../config/config.js';
import { fieldProblem, type FieldProblem } from '../errors.js';

/**
 * Retention tiers (SPEC section 9): raw messages and rollups are each kept a number of days after arrival, on the
 * platform's clock (never a message's own `tsmTs`: a device with a wrong clock, or a gateway replaying a backlog,
 * must not lose data as it arrives). 0 keeps forever. An organization may set its own number for either tier;
 * null means the platform's default (MESSAGE_RETENTION_DAYS, ROLLUP_RETENTION_DAYS).
 */
export const maxRetentionDays = 36_500;
export const dayMs = 86_400_000;

/** The platform's defaults, from the configuration. */
export interface RetentionDefaults {
  messageRetentionDays: number;
  rollupRetentionDays: number;
  deadLetterRetentionDays: number;
}

export function retentionDefaultsOf(
  config: Pick<Config, 'messageRetentionDays' | 'rollupRetentionDays' | 'deadLetterRetentionDays'>,
): RetentionDefaults {
  return {
    messageRetentionDays: config.messageRetentionDays,
    rollupRetentionDays: config.rollupRetentionDays,
    deadLetterRetentionDays: config.deadLetterRetentionDays,
  };
}

/** An organization's own settings: null where it follows the default. */
export interface RetentionOverrides {
  messageRetentionDays: number | null;
  rollupRetentionDays: number | null;
}

/** The days that apply: the organization's own, else the default. 0 is forever. */
export function effectiveRetentionDays(override: number | null | undefined, fallback: number): number {
  return override ?? fallback;
}

/** The arrival (ms) before which data kept `days` may be gone at `now`; null when kept forever. */
export function retentionHorizon(days: number, now: number): number | null {
  return days === 0 ? null : now - days * dayMs;
}

/** A problem with a retention value given for `field`, or undefined when it is a whole number of days 0..36500 (or null). */
export function retentionDaysProblem(field: string, value: unknown): FieldProblem | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > maxRetentionDays)
    return fieldProblem(
      field,
      `must be a whole number of days from 0 (forever) to ${maxRetentionDays}, or null for the platform's default`,
    );
  return undefined;
}
