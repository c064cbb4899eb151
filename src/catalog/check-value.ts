/**
 * Checks one value against its rules (type, value set, range, format, nested items) and phrases
 * what was expected. Shared by strict downlink and lenient uplink validation: the only difference
 * is whether unknown fields inside nested objects are reported.
 */
import type { FieldDefinition, Problem, ValueRules } from './types.js';

export interface CheckOptions {
  /** Report fields the definition does not list (downlinks), or ignore them (uplinks). */
  readonly rejectUnknownFields: boolean;
}

/** Even number of hex digits: one source for the Buffer encoding decision. */
const hexBytesPattern = /^(?:[0-9a-fA-F]{2})+$/;
const sha256Pattern = /^[0-9a-fA-F]{64}$/;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Joins a field path: `binaries` + `[1]`, `binaries[1]` + `binaryType`. */
export function joinPath(parent: string, child: string): string {
  if (parent === '') return child;
  return child.startsWith('[') ? `${parent}${child}` : `${parent}.${child}`;
}

function describeRange(rules: ValueRules): string {
  const kind = rules.integer === true ? 'an integer' : 'a number';
  if (rules.min !== undefined && rules.max !== undefined) return `${kind} between ${rules.min} and ${rules.max}`;
  if (rules.min !== undefined) return `${kind} of at least ${rules.min}`;
  if (rules.max !== undefined) return `${kind} of at most ${rules.max}`;
  return kind;
}

function describeBase(rules: ValueRules): string {
  if (rules.values !== undefined) return `one of ${rules.values.map((entry) => JSON.stringify(entry.value)).join(', ')}`;
  switch (rules.type) {
    case 'Number':
      return describeRange(rules);
    case 'Buffer':
      return 'a hex string of whole bytes (e.g. "0a1b")';
    case 'Array':
      return rules.minItems !== undefined ? `an array of at least ${rules.minItems} element(s)` : 'an array';
    case 'Object':
      return 'an object';
    case 'String':
      if (rules.format === 'url') return 'an absolute http or https URL';
      if (rules.format === 'sha256') return 'a SHA256 checksum of 64 hex digits';
      return rules.minLength !== undefined && rules.minLength > 0 ? 'a non-empty string' : 'a string';
  }
}

/** What a value must be, for people: "an integer between 100 and 60000", "one of -8, -4, 0, 4". */
export function describeExpectation(rules: ValueRules): string {
  const base = describeBase(rules);
  return rules.nullable === true ? `${base} or null` : base;
}

function isUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

/** True when the value itself (not its elements or nested fields) satisfies the rules. */
function isAcceptableValue(value: unknown, rules: ValueRules): boolean {
  if (value === null) return rules.nullable === true;
  if (rules.values !== undefined) return rules.values.some((entry) => entry.value === value);
  switch (rules.type) {
    case 'Number':
      return (
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (rules.integer !== true || Number.isInteger(value)) &&
        (rules.min === undefined || value >= rules.min) &&
        (rules.max === undefined || value <= rules.max)
      );
    case 'String':
      return (
        typeof value === 'string' &&
        value.length >= (rules.minLength ?? 0) &&
        (rules.format !== 'url' || isUrl(value)) &&
        (rules.format !== 'sha256' || sha256Pattern.test(value))
      );
    case 'Buffer':
      return typeof value === 'string' && hexBytesPattern.test(value);
    case 'Array':
      return Array.isArray(value) && value.length >= (rules.minItems ?? 0);
    case 'Object':
      return isPlainObject(value);
  }
}

/** Every problem with one value at `path`: its own, then its elements' or nested fields'. */
export function checkValue(value: unknown, rules: ValueRules, path: string, options: CheckOptions): Problem[] {
  if (!isAcceptableValue(value, rules)) return [{ field: path, message: `${path} must be ${describeExpectation(rules)}` }];
  if (rules.type === 'Array' && rules.items !== undefined && Array.isArray(value)) {
    const items = rules.items;
    return value.flatMap((element, index) => checkValue(element, items, joinPath(path, `[${index}]`), options));
  }
  if (rules.type === 'Object' && rules.fields !== undefined && isPlainObject(value)) {
    return checkFields(value, rules.fields, path, options);
  }
  return [];
}

/** How the top level of a message differs from a nested object. */
export interface FieldsContext {
  /** Accepted without checks here (the envelope fields, checked separately). */
  readonly ignoredNames?: ReadonlySet<string>;
  /** Names what the fields belong to in unknown-field messages, e.g. "message 1500 (...)". */
  readonly owner?: string;
}

/**
 * Checks an object's listed fields (missing required ones, bad values) and, when asked, reports the
 * fields it does not list.
 */
export function checkFields(
  object: Record<string, unknown>,
  fields: readonly FieldDefinition[],
  path: string,
  options: CheckOptions,
  context: FieldsContext = {},
): Problem[] {
  const ignoredNames = context.ignoredNames ?? new Set<string>();
  const problems: Problem[] = [];
  for (const field of fields) {
    const fieldPath = joinPath(path, field.name);
    if (!Object.hasOwn(object, field.name) || object[field.name] === undefined) {
      if (field.required) problems.push({ field: fieldPath, message: `${fieldPath} is required` });
      continue;
    }
    problems.push(...checkValue(object[field.name], field, fieldPath, options));
  }
  if (options.rejectUnknownFields) {
    const known = new Set(fields.map((field) => field.name));
    for (const name of Object.keys(object)) {
      if (known.has(name) || ignoredNames.has(name)) continue;
      const fieldPath = joinPath(path, name);
      const owner = context.owner ?? (path === '' ? 'this message' : path);
      problems.push({ field: fieldPath, message: `${fieldPath} is not a field of ${owner}` });
    }
  }
  return problems;
}
