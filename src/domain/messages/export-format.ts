import { envelopeFields, fieldsForDirection, getMessageDefinition } from '../../catalog/index.js';

/**
 * How an export writes messages (GET /things/{tuid}/messages/export and the group's): pure functions of the
 * messages as served, no I/O. NDJSON is each stored body on its own line; CSV (RFC 4180) has a header row and
 * fixed columns: the envelope, the catalog's fields of the chosen message ids, then `otherFields`, one JSON object
 * of whatever else the message carried. The columns are known before the first row, so the export reads each row
 * once and keeps none (docs/decisions.md, Export).
 *
 * CSV is opened in spreadsheets, which run a cell starting with `=`, `+`, `-` or `@` (or a tab or carriage return
 * before one) as a formula: a device's `swVersion` of `=HYPERLINK(...)` would become a link in the operator's sheet.
 * Such text cells get a leading `'` (OWASP, CSV injection), unless the caller asks for the raw text (`raw`, for
 * programs). The rule follows the value's JSON type: a number (`-3.5` sent as a number) is written as its JSON text
 * and never touched, while a string (`"-3.5"` sent as text) is text like any other and is neutralized.
 */

export const exportFormats = ['ndjson', 'csv'] as const;
export type ExportFormat = (typeof exportFormats)[number];

export const exportMediaTypes: Readonly<Record<ExportFormat, string>> = {
  ndjson: 'application/x-ndjson',
  csv: 'text/csv; charset=utf-8',
};

/** Added to every served message (messageJsonWithGroup): a column after the catalog's envelope. */
const servedEnvelopeFields = ['deploymentGroupId'];

/** The last CSV column: the message's other members as one JSON object (empty when there are none). */
export const otherFieldsColumn = 'otherFields';

/**
 * The CSV columns for messages of `messageIds` (in the order given; none given: no catalog columns): the envelope
 * in the catalog's order and `deploymentGroupId`, then each id's uplink fields in the catalog's order, each name
 * once, then `otherFields`. An id the catalog does not know adds no column; its fields land in `otherFields`.
 */
export function csvColumns(messageIds: readonly number[] = []): string[] {
  const columns = [...envelopeFields.map((field) => field.name), ...servedEnvelopeFields];
  for (const tsmId of messageIds) {
    const definition = getMessageDefinition(tsmId);
    const fields = definition && fieldsForDirection(definition, 'uplink');
    for (const field of fields ?? []) if (!columns.includes(field.name)) columns.push(field.name);
  }
  return [...columns, otherFieldsColumn];
}

/** The header row, CRLF-terminated as RFC 4180 writes records. */
export function csvHeader(columns: readonly string[]): string {
  return `${columns.map(csvField).join(',')}\r\n`;
}

/** How CSV cells are written: `raw` keeps text that a spreadsheet would run as a formula as it is. */
export interface CsvOptions {
  raw: boolean;
}

/**
 * One message (its served JSON text) as a CSV record over `columns`: a string as itself (neutralized unless
 * `options.raw`, `neutralizeFormula`), any other value as its JSON text (numbers, `true`, `null`, nested objects and
 * arrays), an absent member as an empty field. Members with no column go into `otherFields` in the order the
 * message has them (a JSON object, which starts with `{`: never a formula).
 */
export function csvRecord(columns: readonly string[], messageJson: string, options: CsvOptions = { raw: false }): string {
  const message = JSON.parse(messageJson) as Record<string, unknown>;
  const others: Record<string, unknown> = {};
  let hasOthers = false;
  const named = new Set(columns);
  for (const key of Object.keys(message)) {
    if (!named.has(key) || key === otherFieldsColumn) {
      others[key] = message[key];
      hasOthers = true;
    }
  }
  const fields = columns.map((column) =>
    column === otherFieldsColumn ? (hasOthers ? JSON.stringify(others) : '') : csvValue(message[column], options),
  );
  return `${fields.map(csvField).join(',')}\r\n`;
}

/** NDJSON: the message exactly as the messages endpoint serves it, one per line. */
export function ndjsonRecord(messageJson: string): string {
  return `${messageJson}\n`;
}

function csvValue(value: unknown, options: CsvOptions): string {
  if (value === undefined) return '';
  if (typeof value !== 'string') return JSON.stringify(value);
  return options.raw ? value : neutralizeFormula(value);
}

// The first characters with which a spreadsheet (Excel, LibreOffice, Google Sheets) reads a cell as a formula.
const formulaStart = /^[=+\-@\t\r]/;

/** Text a spreadsheet would run as a formula, with a leading `'` that makes it text (OWASP); other text unchanged. */
export function neutralizeFormula(text: string): string {
  return formulaStart.test(text) ? `'${text}` : text;
}

/** RFC 4180: a field holding a quote, comma, CR or LF is quoted, its quotes doubled. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * Content-Disposition for an export named after what it holds (`thing-T-1-messages.csv`): `filename` keeps
 * letters, digits, `.`, `_` and `-` (anything else becomes `_`, so any client accepts it), `filename*` (RFC 6266)
 * carries the exact name, e.g. a group id with accents.
 */
export function exportContentDisposition(subject: 'thing' | 'group', id: string, format: ExportFormat): string {
  const name = `${subject}-${id}-messages.${format}`;
  const plain = name.replace(/[^A-Za-z0-9._-]/g, '_');
  // RFC 5987 attr-chars: encodeURIComponent leaves ' ( ) * ! as they are, which the header's grammar does not allow.
  const exact = encodeURIComponent(name).replace(/['()*!]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${plain}"; filename*=UTF-8''${exact}`;
}
