import { alertSeverities, alertTypes, type AlertSeverity } from '../alerts/alert-types.js';
import { fieldProblem, type FieldProblem } from '../errors.js';
import { ruleOps, type RuleInput, type RuleOp, type RulePatch, type RuleScope } from './rule-types.js';

export const ruleLimits = {
  nameLength: { min: 1, max: 100 },
  fieldLength: 200,
  /** A week: longer conditions are better served by a report than by an alert. */
  forS: { min: 0, max: 604_800 },
  scopeEntries: 1000,
  channels: 20,
} as const;

/** A dotted path of one or more segments, each a plain key (`temp`, `env.temp`, `sensors.0.value`). */
const fieldPattern = /^[A-Za-z0-9_$-]+(\.[A-Za-z0-9_$-]+)*$/;

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

function checkList(field: string, value: unknown, max: number): FieldProblem | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.length > max || value.some((v) => typeof v !== 'string' || v === '' || v.length > 200))
    return fieldProblem(field, `must be a list of at most ${max} non-empty strings, or null`);
  return undefined;
}

/**
 * The rules of a rule's fields (SPEC section 13), every problem named by its field. Creating requires name, tsmId,
 * field, op, threshold and severity; a change checks only what it gives.
 */
export function checkRuleInput(input: RuleInput, creating: boolean): FieldProblem[] {
  const problems: (FieldProblem | undefined)[] = [];
  const given = (value: unknown) => creating || value !== undefined;
  if (given(input.name)) {
    const { min, max } = ruleLimits.nameLength;
    if (typeof input.name !== 'string' || input.name.trim().length < min || input.name.length > max)
      problems.push(fieldProblem('name', `must be ${min} to ${max} characters`));
    else if ((alertTypes as readonly string[]).includes(input.name))
      problems.push(fieldProblem('name', 'must not be the name of a built-in alert'));
  }
  if (given(input.tsmId) && !(Number.isInteger(input.tsmId) && (input.tsmId as number) >= 0))
    problems.push(fieldProblem('tsmId', 'must be a non-negative integer (a message id)'));
  if (
    given(input.field) &&
    (typeof input.field !== 'string' || input.field.length > ruleLimits.fieldLength || !fieldPattern.test(input.field))
  )
    problems.push(fieldProblem('field', `must be a dotted path into the message (env.temp), at most ${ruleLimits.fieldLength} characters`));
  if (given(input.op) && !(ruleOps as readonly unknown[]).includes(input.op))
    problems.push(fieldProblem('op', `must be one of ${ruleOps.join(', ')}`));
  if (given(input.threshold) && !isFiniteNumber(input.threshold)) problems.push(fieldProblem('threshold', 'must be a number'));
  if (input.clearThreshold !== undefined && input.clearThreshold !== null && !isFiniteNumber(input.clearThreshold))
    problems.push(fieldProblem('clearThreshold', 'must be a number, or null for the threshold'));
  const { forS } = ruleLimits;
  if (
    input.forS !== undefined &&
    !(Number.isInteger(input.forS) && (input.forS as number) >= forS.min && (input.forS as number) <= forS.max)
  )
    problems.push(fieldProblem('forS', `must be an integer from ${forS.min} to ${forS.max} seconds`));
  if (input.scope !== undefined && input.scope !== null) {
    const scope = input.scope as Record<string, unknown>;
    if (typeof scope !== 'object' || Array.isArray(scope)) problems.push(fieldProblem('scope', 'must be an object {groupIds, tuids}'));
    else {
      problems.push(checkList('scope.groupIds', scope.groupIds, ruleLimits.scopeEntries));
      problems.push(checkList('scope.tuids', scope.tuids, ruleLimits.scopeEntries));
    }
  }
  if (given(input.severity) && !(alertSeverities as readonly unknown[]).includes(input.severity))
    problems.push(fieldProblem('severity', `must be one of ${alertSeverities.join(', ')}`));
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') problems.push(fieldProblem('enabled', 'must be true or false'));
  problems.push(checkList('channels', input.channels, ruleLimits.channels));
  return problems.filter((p): p is FieldProblem => p !== undefined);
}

/**
 * The hysteresis rule: a clear threshold must lie on the side of the threshold where the condition does not hold
 * (for `gt`, at or below it), else a value could open and clear a period at once.
 */
export function checkClearThreshold(op: RuleOp, threshold: number, clearThreshold: number | null): FieldProblem | undefined {
  if (clearThreshold === null) return undefined;
  const ok = op === 'gt' || op === 'gte' ? clearThreshold <= threshold : op === 'lt' || op === 'lte' ? clearThreshold >= threshold : false;
  if (ok) return undefined;
  return op === 'eq' || op === 'ne'
    ? fieldProblem('clearThreshold', 'applies to gt, gte, lt and lte only; leave it null for eq and ne')
    : fieldProblem('clearThreshold', `must be ${op.startsWith('g') ? 'at or below' : 'at or above'} the threshold`);
}

const listOrNull = (value: unknown): string[] | null => (Array.isArray(value) && value.length > 0 ? [...new Set(value as string[])] : null);

/** The checked input as a rule's fields (only those given); scope lists and channels without repeats. */
export function patchOf(input: RuleInput): RulePatch {
  const scope = input.scope as { groupIds?: unknown; tuids?: unknown } | null | undefined;
  return {
    ...(input.name !== undefined && { name: (input.name as string).trim() }),
    ...(input.tsmId !== undefined && { tsmId: input.tsmId as number }),
    ...(input.field !== undefined && { field: input.field as string }),
    ...(input.op !== undefined && { op: input.op as RuleOp }),
    ...(input.threshold !== undefined && { threshold: input.threshold as number }),
    ...(input.clearThreshold !== undefined && { clearThreshold: input.clearThreshold as number | null }),
    ...(input.forS !== undefined && { forS: input.forS as number }),
    ...(scope !== undefined && {
      scope: { groupIds: listOrNull(scope?.groupIds), tuids: listOrNull(scope?.tuids) } satisfies RuleScope,
    }),
    ...(input.severity !== undefined && { severity: input.severity as AlertSeverity }),
    ...(input.enabled !== undefined && { enabled: input.enabled as boolean }),
    ...(input.channels !== undefined && { channels: listOrNull(input.channels) ?? [] }),
  };
}
