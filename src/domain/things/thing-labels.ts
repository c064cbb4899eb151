import { fieldProblem, type FieldProblem } from '../errors.js';

/**
 * The rules of a thing's name and labels (SPEC section 12), stated once: PATCH /things/{tuid}, GraphQL updateThing,
 * the import of things and the label filter of the thing lists all check here. Lengths are in Unicode code points,
 * what PostgreSQL's varchar counts.
 */
export const thingLabelLimits = { nameMax: 200, labelsMax: 50, keyMax: 63, valueMax: 200 } as const;

/** A label key: lower-case letters, digits, `_`, `.` and `-`, 1 to 63 of them. */
export const labelKeyPattern = /^[a-z0-9_.-]{1,63}$/;

/** A thing's labels: key to value. `{}` when it has none. */
export type Labels = Readonly<Record<string, string>>;

/** The name rule: null (no name) or a string of 1 to 200 characters without control characters (tab and line breaks allowed). */
export function checkThingName(field: string, value: unknown): FieldProblem | undefined {
  if (value === null) return undefined;
  if (typeof value !== 'string') return fieldProblem(field, 'must be a string or null');
  const length = codePointLength(value);
  if (length < 1 || length > thingLabelLimits.nameMax)
    return fieldProblem(field, `must be 1 to ${thingLabelLimits.nameMax} characters, or null`);
  if (controlCharacters.test(value.replace(/[\t\n\r]/g, '')))
    return fieldProblem(field, 'must not contain control characters but tab and line breaks');
  return undefined;
}

/** The rule of one label key; `field` names where it was given. */
export function checkLabelKey(field: string, key: string): FieldProblem | undefined {
  if (!labelKeyPattern.test(key)) return fieldProblem(field, `key "${key}" must match ${labelKeyPattern.source}`);
  // JavaScript objects would take it for their prototype, and the label would silently vanish.
  if (key === '__proto__') return fieldProblem(field, 'key "__proto__" is reserved');
  return undefined;
}

/** The rule of one label value (`field`: `labels.<key>` or the column it came from). */
export function checkLabelValue(field: string, value: unknown): FieldProblem | undefined {
  if (typeof value !== 'string') return fieldProblem(field, 'must be a string');
  if (codePointLength(value) > thingLabelLimits.valueMax)
    return fieldProblem(field, `must be at most ${thingLabelLimits.valueMax} characters`);
  if (controlCharacters.test(value)) return fieldProblem(field, 'must not contain control characters');
  return undefined;
}

/**
 * The labels rule for a whole set of labels: an object of at most 50 keys, each key and value as above. Problems
 * name `field` for the whole (`labels`) and `field.<key>` for one value.
 */
export function checkLabels(field: string, value: unknown): FieldProblem[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [fieldProblem(field, 'must be an object of strings')];
  const entries = Object.entries(value as Record<string, unknown>);
  const problems: FieldProblem[] = [];
  if (entries.length > thingLabelLimits.labelsMax)
    problems.push(fieldProblem(field, `must have at most ${thingLabelLimits.labelsMax} keys`));
  for (const [key, labelValue] of entries) {
    const keyProblem = checkLabelKey(field, key);
    if (keyProblem) problems.push(keyProblem);
    else {
      const valueProblem = checkLabelValue(`${field}.${key}`, labelValue);
      if (valueProblem) problems.push(valueProblem);
    }
  }
  return problems;
}

/** The problem of a label count over the limit once labels are merged (an import's `label.<key>` cells), or undefined. */
export function checkLabelCount(field: string, labels: Labels): FieldProblem | undefined {
  const n = Object.keys(labels).length;
  return n > thingLabelLimits.labelsMax ? fieldProblem(field, `must have at most ${thingLabelLimits.labelsMax} keys`) : undefined;
}

/** Labels in one order (by key), so two equal sets compare and store alike. */
export function sortedLabels(labels: Labels): Labels {
  const sorted: Record<string, string> = {};
  for (const key of Object.keys(labels).sort()) sorted[key] = labels[key]!;
  return sorted;
}

/** Whether two sets of labels hold the same keys and values. */
export function sameLabels(a: Labels, b: Labels): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/** One `key:value` label filter (`site:north`): split at the first colon; the parts follow the label rules. */
export function parseLabelFilter(field: string, text: string): { key: string; value: string } | FieldProblem {
  const colon = text.indexOf(':');
  if (colon < 0) return fieldProblem(field, 'must be key:value');
  const key = text.slice(0, colon);
  const value = text.slice(colon + 1);
  return checkLabelKey(field, key) ?? checkLabelValue(field, value) ?? { key, value };
}

/** Labels as stored (a JSON object); anything unreadable is no labels. */
export function labelsFromJson(text: string | null | undefined): Labels {
  if (!text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? (parsed as Labels) : {};
  } catch {
    return {};
  }
}

// Control characters (Cc) and lone surrogates: not text a person reads, and would not survive UTF-8.
const controlCharacters = /[\p{Cc}\p{Cs}]/u;

function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n += 1;
  return n;
}
