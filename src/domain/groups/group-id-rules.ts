import { fieldProblem, validationFailed, type FieldProblem } from '../errors.js';
import { unassignedGroupId } from './unassigned-group.js';

/** Length limits of a group, in Unicode code points (what PostgreSQL's varchar counts). */
export const groupLimits = { idMax: 64, descriptionMax: 1024 } as const;

/**
 * Characters no group id may contain:
 * - whitespace of every kind: Unicode White_Space (space, tab, newlines, NBSP, ideographic space, NEL, ...) and
 *   what JavaScript's \s adds (the BOM);
 * - control characters (Cc) and invisible format characters (Cf: zero-width space and joiners, bidi overrides),
 *   so two ids that look the same are the same;
 * - `/`, `+` and `#`: the id is an MQTT topic segment of the data feed;
 * - lone surrogates (Cs), which are not text and would not survive UTF-8.
 */
const forbiddenInGroupId = /[\p{White_Space}\s\p{Cc}\p{Cf}\p{Cs}/+#]/u;

/** Control characters a description may not hold: all but tab, line feed and carriage return (free text spans lines). */
const forbiddenInDescription = /[\p{Cc}\p{Cs}]/u;
const allowedDescriptionControls = new Set(['\t', '\n', '\r']);

/**
 * The group id rule (SPEC section 2): 1 to 64 characters, none forbidden above, not `.` or `..` (URLs would
 * resolve them away), and not `unassigned` in any letter case (the pseudo-group of things in no group). Ids are
 * otherwise case-sensitive. Returns the problem naming `field`, or undefined when `value` is a valid id.
 */
export function checkGroupId(field: string, value: unknown): FieldProblem | undefined {
  const broken = brokenGroupIdRule(value);
  return broken === undefined ? undefined : fieldProblem(field, broken);
}

/**
 * The group id rule `value` breaks, as the end of a sentence about the field (`must be 1 to 64 characters`), or
 * undefined when it is a valid id. The one statement of the rule: checkGroupId and the REST schemas use it.
 */
export function brokenGroupIdRule(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'must be a string';
  const length = codePointLength(value);
  if (length < 1 || length > groupLimits.idMax) return `must be 1 to ${groupLimits.idMax} characters`;
  const bad = forbiddenInGroupId.exec(value)?.[0];
  if (bad !== undefined) return `must not contain whitespace, control characters, /, + or # (found ${describeCharacter(bad)})`;
  if (value === '.' || value === '..') return 'must not be . or ..';
  if (value.toLowerCase() === unassignedGroupId)
    return `must not be ${unassignedGroupId} (in any letter case): it names the things in no group`;
  return undefined;
}

/** The description rule: absent or null means none; otherwise a string of at most 1024 characters. */
export function checkGroupDescription(field: string, value: unknown): FieldProblem | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return fieldProblem(field, 'must be a string or null');
  if (codePointLength(value) > groupLimits.descriptionMax)
    return fieldProblem(field, `must be at most ${groupLimits.descriptionMax} characters`);
  const bad = [...value].find((c) => forbiddenInDescription.test(c) && !allowedDescriptionControls.has(c));
  if (bad !== undefined) return fieldProblem(field, `must not contain control characters (found ${describeCharacter(bad)})`);
  return undefined;
}

/** A valid id of a real group, or VALIDATION_FAILED naming `field`. */
export function requireGroupId(field: string, value: unknown): string {
  const problem = checkGroupId(field, value);
  if (problem) throw validationFailed([problem]);
  return value as string;
}

/**
 * A reference to a group where the pseudo-group may be named: exactly `unassigned` gives null (no group); any
 * other value must be a valid group id. Other spellings (`Unassigned`) are reserved, hence invalid.
 */
export function requireGroupRef(field: string, value: unknown): string | null {
  return value === unassignedGroupId ? null : requireGroupId(field, value);
}

function codePointLength(value: string): number {
  let n = 0;
  for (const _ of value) n += 1;
  return n;
}

function describeCharacter(c: string): string {
  return `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}
