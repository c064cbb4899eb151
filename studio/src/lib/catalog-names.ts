/**
 * How the studio names things with the catalog: a field's words instead of its wire name, a message id's name.
 * Plain functions over the catalog's JSON, so they are tested without a browser (test/studio/catalog-names.test.ts).
 */

/** A field as far as naming needs it (src/catalog/types.ts FieldDefinition). */
export interface NamedField {
  name: string;
  values?: { value: unknown; meaning: string }[];
  unit?: string;
  description?: string;
}

/** A message definition as far as naming needs it. */
export interface NamedMessage {
  tsmId: number;
  name: string;
  fields: NamedField[];
  variants?: { fields: NamedField[] }[];
}

/**
 * Remarks about the seed the catalog was written from ("unit not shown by the seed"): notes for whoever maintains
 * the catalog, not words an operator needs, so the studio leaves them out.
 */
const seedRemark = /\s*\([^)]*\bseed\b[^)]*\)/gi;

/** "measurementInterval" → "Measurement interval", "transactionId" → "Transaction id". */
export function wordsOf(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .trim()
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A label longer than this reads as a sentence: the field's name in words is the label then. */
const longestLabel = 40;

/**
 * A field's label and the rest of its description: the description's first clause without its parentheses when that
 * is short ("Air pressure", "Low-latency mode"), else the name in words; the hint keeps what the label leaves out.
 */
export function describeField(field: NamedField): { label: string; hint: string } {
  const description = (field.description ?? '').replace(seedRemark, '').trim();
  const [first = '', ...rest] = description.split(';');
  const clause = first.replace(/\s*\([^)]*\)/g, '').trim();
  if (clause !== '' && clause.length <= longestLabel) {
    const remainder = [first === clause ? '' : first.trim(), ...rest.map((part) => part.trim())].filter(Boolean).join('; ');
    return { label: clause.charAt(0).toUpperCase() + clause.slice(1), hint: remainder };
  }
  return { label: wordsOf(field.name), hint: description };
}

/** A field of a message id by its wire name, from the message's fields or any of its variants'. */
export function fieldOf(catalog: readonly NamedMessage[], tsmId: number, name: string): NamedField | undefined {
  const message = catalog.find((entry) => entry.tsmId === tsmId);
  if (!message) return undefined;
  return [...message.fields, ...(message.variants ?? []).flatMap((variant) => variant.fields)].find((field) => field.name === name);
}

/** A message id's name ("Weather Info"), or undefined for an id the catalog does not have. */
export function messageName(catalog: readonly NamedMessage[], tsmId: number): string | undefined {
  return catalog.find((entry) => entry.tsmId === tsmId)?.name;
}

/** A value as the catalog means it: a value set's entry by its meaning, a number with its unit, anything else as JSON. */
export function describeValue(field: NamedField, value: unknown): string {
  const meaning = field.values?.find((option) => option.value === value)?.meaning;
  if (meaning !== undefined) return meaning;
  if (typeof value === 'number')
    return `${value.toLocaleString('en-US', { maximumFractionDigits: 6 })}${field.unit ? ` ${field.unit}` : ''}`;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** "Air pressure: 101,000 Pa, Relative humidity: 45.5 %RH": a message's fields in the catalog's words. */
export function describeFields(catalog: readonly NamedMessage[], tsmId: number, entries: [string, unknown][]): string {
  return entries
    .map(([name, value]) => {
      const field = fieldOf(catalog, tsmId, name);
      return field
        ? `${describeField(field).label}: ${describeValue(field, value)}`
        : `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
    })
    .join(', ');
}
