/** Markdown tables of fields, for render-markdown.ts. Pure string building. */
import type { FieldDefinition, ValueRules } from './types.js';

/** Keeps a table cell on one line and its pipes literal. */
export function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

function code(value: number | string): string {
  return `\`${JSON.stringify(value)}\``;
}

function describeRange(rules: ValueRules): string {
  if (rules.min !== undefined && rules.max !== undefined) return `${rules.min} to ${rules.max}`;
  if (rules.min !== undefined) return `at least ${rules.min}`;
  if (rules.max !== undefined) return `at most ${rules.max}`;
  return '';
}

/** The "Values / range" cell: value set, bit flags, range, format or item rules. */
export function describeRules(rules: ValueRules & { readonly flags?: FieldDefinition['flags'] }): string {
  const parts: string[] = [];
  if (rules.values !== undefined) parts.push(rules.values.map((entry) => `${code(entry.value)} ${entry.meaning}`).join('; '));
  if (rules.flags !== undefined) {
    const flags = rules.flags.map((flag) => `0x${flag.bit.toString(16).padStart(2, '0')} ${flag.name}`).join('; ');
    parts.push(`bit flags: ${flags}`);
  }
  const range = describeRange(rules);
  if (range !== '') parts.push(range);
  if (rules.format === 'url') parts.push('absolute http(s) URL');
  if (rules.format === 'sha256') parts.push('64 hex digits');
  if (rules.minLength !== undefined && rules.minLength > 0) parts.push('non-empty');
  if (rules.type === 'Buffer') parts.push('hex string of whole bytes');
  if (rules.minItems !== undefined) parts.push(`at least ${rules.minItems} element(s)`);
  if (rules.items !== undefined && rules.items.type !== 'Object') {
    const itemRules = describeRules(rules.items);
    parts.push(`elements: ${describeType(rules.items)}${itemRules === '' ? '' : `, ${itemRules}`}`);
  }
  if (rules.nullable === true) parts.push('or null');
  return parts.join('; ');
}

/** "Number (integer)", "String", "Array of Object". */
export function describeType(rules: ValueRules): string {
  const base = rules.type === 'Array' && rules.items !== undefined ? `Array of ${describeType(rules.items)}` : rules.type;
  return rules.integer === true ? `${base} (integer)` : base;
}

/** A table of fields; object elements of arrays follow as their own tables, titled by path. */
export function renderFieldTable(fields: readonly FieldDefinition[], path = ''): string[] {
  if (fields.length === 0) return ['No fields.', ''];
  const lines = [
    '| Field | Type | Required | Unit | Values / range | Default | Description |',
    '|---|---|---|---|---|---|---|',
    ...fields.map((field) =>
      [
        '',
        `\`${field.name}\``,
        describeType(field),
        field.required ? 'required' : 'optional',
        field.unit ?? '',
        cell(describeRules(field)),
        field.default === undefined ? '' : code(field.default),
        cell(field.description ?? ''),
        '',
      ]
        .join(' | ')
        .trim(),
    ),
    '',
  ];
  for (const field of fields) {
    const nested = field.items?.type === 'Object' ? field.items.fields : undefined;
    if (nested === undefined) continue;
    const nestedPath = `${path}${field.name}[]`;
    lines.push(`Each element of \`${nestedPath}\`:`, '', ...renderFieldTable(nested, `${nestedPath}.`));
  }
  return lines;
}
