/**
 * Builds the table of violating cases from the definitions: for every field of every message form,
 * one case per rule it has (required, type, value set, range, integer, format, items). Not a test
 * file itself; the validate-*.test.ts files run the table.
 */
import { exampleMessage, messageDefinitions } from '../../src/catalog/index.js';
import type { FieldDefinition, MessageDefinition, ValueRules } from '../../src/catalog/index.js';

export interface MessageForm {
  readonly tsmId: number;
  readonly variant?: 'request' | 'response';
  readonly direction: 'uplink' | 'downlink';
  readonly fields: readonly FieldDefinition[];
  readonly openPayload: boolean;
  readonly label: string;
}

/** Every way a message can be sent: one form per id, or one per variant. */
export function messageForms(): MessageForm[] {
  const definitions: readonly MessageDefinition[] = messageDefinitions;
  return definitions.flatMap((definition): MessageForm[] => {
    const openPayload = definition.openPayload === true;
    if (definition.variants === undefined) {
      const direction = definition.direction === 'uplink' ? 'uplink' : 'downlink';
      return [{ tsmId: definition.tsmId, direction, fields: definition.fields, openPayload, label: `${definition.tsmId}` }];
    }
    return definition.variants.map((variant) => ({
      tsmId: definition.tsmId,
      variant: variant.name,
      direction: variant.direction,
      fields: variant.fields,
      openPayload,
      label: `${definition.tsmId} ${variant.name}`,
    }));
  });
}

type Segment = string | number;
const remove = Symbol('remove');

export interface Violation {
  readonly description: string;
  /** The problem path the validator must name. */
  readonly path: string;
  readonly message: Record<string, unknown>;
}

export function formatPath(segments: readonly Segment[]): string {
  return segments.map((segment, index) => (typeof segment === 'number' ? `[${segment}]` : index === 0 ? segment : `.${segment}`)).join('');
}

function withValueAt(message: Record<string, unknown>, segments: readonly Segment[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(message);
  let parent: Record<Segment, unknown> = copy;
  for (const segment of segments.slice(0, -1)) parent = parent[segment] as Record<Segment, unknown>;
  const last = segments[segments.length - 1] as Segment;
  if (value === remove) delete parent[last];
  else parent[last] = value;
  return copy;
}

/** A value of the wrong JSON type for these rules. */
function wrongTypeValue(rules: ValueRules): unknown {
  return rules.type === 'Number' ? 'not a number' : rules.type === 'Object' ? 'not an object' : 12345;
}

/** A value outside the set: numbers far outside every set, strings no set contains. */
function outsideSetValue(rules: ValueRules): unknown {
  return typeof rules.values?.[0]?.value === 'string' ? 'not-a-listed-value' : 9999;
}

function ruleCases(rules: ValueRules, required: boolean): [string, unknown][] {
  const cases: [string, unknown][] = [['wrong type', wrongTypeValue(rules)]];
  if (required) cases.push(['missing required field', remove]);
  if (rules.nullable !== true) cases.push(['null', null]);
  if (rules.values !== undefined) cases.push(['value outside the set', outsideSetValue(rules)]);
  if (rules.min !== undefined) cases.push(['below the minimum', rules.min - 1]);
  if (rules.max !== undefined) cases.push(['above the maximum', rules.max + 1]);
  if (rules.integer === true && rules.values === undefined) {
    cases.push(['fraction', rules.min !== undefined ? rules.min + 0.5 : rules.max !== undefined ? rules.max - 0.5 : 1.5]);
  }
  if (rules.type === 'Buffer') cases.push(['odd number of hex digits', 'abc'], ['not hex', 'zz'], ['empty buffer', '']);
  if (rules.format === 'url') cases.push(['not a URL', 'not a url'], ['not http(s)', 'ftp://example.com/x.bin']);
  if (rules.format === 'sha256') cases.push(['not 64 hex digits', 'abc123']);
  if (rules.minItems !== undefined) cases.push(['too few elements', []]);
  return cases;
}

function fieldViolations(base: Record<string, unknown>, fields: readonly FieldDefinition[], parent: readonly Segment[]): Violation[] {
  return fields.flatMap((field) => {
    const segments = [...parent, field.name];
    const path = formatPath(segments);
    const own = ruleCases(field, field.required).map(([description, value]) => ({
      description: `${path}: ${description}`,
      path,
      message: withValueAt(base, segments, value),
    }));
    const items = field.items;
    if (items === undefined) return own;
    const itemSegments = [...segments, 0];
    const itemPath = formatPath(itemSegments);
    const nested =
      items.type === 'Object'
        ? fieldViolations(base, items.fields ?? [], itemSegments)
        : ruleCases(items, false).map(([description, value]) => ({
            description: `${itemPath}: ${description}`,
            path: itemPath,
            message: withValueAt(base, itemSegments, value),
          }));
    return [...own, ...nested];
  });
}

/** Every violating case of one form, each starting from that form's valid example. */
export function violationsOf(form: MessageForm): Violation[] {
  const example = exampleMessage(form.tsmId, form.variant) as Record<string, unknown>;
  return fieldViolations(example, form.fields, []);
}
