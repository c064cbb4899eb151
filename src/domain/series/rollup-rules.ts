import { envelopeFieldNames } from '../../catalog/envelope.js';

/**
 * Which values of an uplink are rolled up, and into which buckets: the one statement of the rule, used by both
 * stores' ingest (to build the rollups) and by raw series reads (to pick a field's value out of a stored message),
 * so a raw point and the rollup that counts it agree.
 *
 * A rolled-up field is a finite number anywhere in the message body except the envelope (tsmId, tsmEv, tsmTs,
 * tsmTuid, tsmGw, tsmDstTuid, transactionId) and `deploymentGroupId`. Members of nested objects are named by their
 * path joined with dots (`position.lat`), down to `maxNestingDepth` levels below the top; arrays, strings,
 * booleans and null are not numbers and are skipped. A message yields at most `maxFieldsPerMessage` fields (in the
 * order they appear), and a name longer than `maxFieldNameLength` is skipped: a hostile payload cannot make a
 * thousand rollup rows out of one message.
 */
export const rollupLimits = { maxFieldsPerMessage: 64, maxFieldNameLength: 100, maxNestingDepth: 3 } as const;

/** Top-level members that are never measurements. */
const excludedTopLevel: ReadonlySet<string> = new Set([...envelopeFieldNames, 'deploymentGroupId']);

/** One numeric field of a message: its (dotted) name and value. */
export interface NumericField {
  name: string;
  value: number;
}

/** The numeric fields of a message as the rule above states; an empty list when it has none. */
export function extractNumericFields(message: Readonly<Record<string, unknown>>): NumericField[] {
  const fields: NumericField[] = [];
  collect(message, '', 0, fields);
  return fields;
}

function collect(object: Readonly<Record<string, unknown>>, prefix: string, depth: number, into: NumericField[]): void {
  for (const key in object) {
    if (into.length >= rollupLimits.maxFieldsPerMessage) return;
    if (depth === 0 && excludedTopLevel.has(key)) continue;
    const value = object[key];
    const name = prefix === '' ? key : `${prefix}.${key}`;
    if (typeof value === 'number') {
      if (Number.isFinite(value) && name.length <= rollupLimits.maxFieldNameLength) into.push({ name, value });
    } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && depth < rollupLimits.maxNestingDepth) {
      collect(value as Record<string, unknown>, name, depth + 1, into);
    }
  }
}

/**
 * How a raw read may take `field` out of stored messages without parsing them in JavaScript: `direct` when the
 * name can only be a top-level member (no dot, no quote or backslash, not excluded), so the store's own JSON
 * functions read it; `none` for an excluded name (never a field); `parse` otherwise (extractNumericFields decides).
 */
export function rawReadOf(field: string): 'direct' | 'none' | 'parse' {
  if (field.includes('.')) return 'parse';
  if (excludedTopLevel.has(field)) return 'none';
  return /["\\]/.test(field) ? 'parse' : 'direct';
}

/**
 * Below this length (characters of JSON text) a message cannot hold more than `maxFieldsPerMessage` numeric
 * members (each takes at least six: `"x":0,`), so the field cap cannot have dropped a top-level field and a direct
 * read gives exactly what extractNumericFields gives. Longer messages are parsed. A store may measure it in bytes
 * (never fewer than characters): a message it then parses for nothing gets the same answer.
 */
export const directReadMaxBodyLength = 6 * rollupLimits.maxFieldsPerMessage;

/** Seconds in a bucket of each rollup size. Buckets are UTC: an hour or a day starts at a multiple of its size. */
export const hourSeconds = 3600;
export const daySeconds = 86_400;

/** The start of the bucket of `size` seconds holding `seconds` (Unix seconds, UTC). */
export function floorTo(seconds: number, size: number): number {
  return Math.floor(seconds / size) * size;
}

/** The start (Unix seconds) of the UTC hour holding a message's `tsmTs` (device time; a fraction is floored). */
export function hourStartOf(tsmTs: number): number {
  return floorTo(tsmTs, hourSeconds);
}

/**
 * The value of `field` in a stored message of a raw read: the value the store read itself (a direct read, see
 * rawReadOf), or the one extractNumericFields finds in its body; null when the message has no such number.
 */
export function rawValueOf(message: { value: number | null; body: string | null }, field: string): number | null {
  if (message.body === null) return message.value;
  return extractNumericFields(JSON.parse(message.body) as Record<string, unknown>).find((f) => f.name === field)?.value ?? null;
}
