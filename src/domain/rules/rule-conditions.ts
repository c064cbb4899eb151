import { shownGroupId } from '../groups/unassigned-group.js';
import type { AlertRule, RuleOp } from './rule-types.js';

/**
 * The rules of a rule's condition (SPEC section 13), pure: where a value is read, whether a thing is in scope,
 * when the condition holds and when an open period clears (hysteresis).
 */

/**
 * The number at a dotted path of a message (`env.temp`, `sensors.0.value`); undefined when the path is missing or
 * leads to anything but a finite number (null, a string, an object): such a message changes nothing.
 */
export function valueAt(message: Readonly<Record<string, unknown>>, path: readonly string[]): number | undefined {
  let current: unknown = message;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'number' && Number.isFinite(current) ? current : undefined;
}

export function compare(value: number, op: RuleOp, threshold: number): boolean {
  switch (op) {
    case 'gt':
      return value > threshold;
    case 'gte':
      return value >= threshold;
    case 'lt':
      return value < threshold;
    case 'lte':
      return value <= threshold;
    case 'eq':
      return value === threshold;
    case 'ne':
      return value !== threshold;
  }
}

/** The condition that opens a period (after `for_s`). */
export function holds(rule: Pick<AlertRule, 'op' | 'threshold'>, value: number): boolean {
  return compare(value, rule.op, rule.threshold);
}

/**
 * Whether an open period closes at this value: once the value is back past the clear threshold (the same
 * comparison against it no longer holds); without one, once the condition itself no longer holds.
 */
export function clears(rule: Pick<AlertRule, 'op' | 'threshold' | 'clearThreshold'>, value: number): boolean {
  return !compare(value, rule.op, rule.clearThreshold ?? rule.threshold);
}

/** Whether a thing is covered: each given list must match (groups as shown, `unassigned` for none). */
export function inScope(rule: Pick<AlertRule, 'scope'>, tuid: string, groupId: string | null): boolean {
  const { groupIds, tuids } = rule.scope;
  if (tuids !== null && !tuids.includes(tuid)) return false;
  if (groupIds !== null && !groupIds.includes(shownGroupId(groupId))) return false;
  return true;
}
