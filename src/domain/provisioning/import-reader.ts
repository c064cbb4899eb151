import { StringDecoder } from 'node:string_decoder';
import { parse } from 'csv-parse';
import { fieldProblem, invalidField, validationFailed, type FieldProblem } from '../errors.js';
import { importLimits, tooManyBytes, tooManyRows, type ImportFormat } from './import-limits.js';

/**
 * One record of an import file as read, before any rule is applied: the row (the line where the record starts:
 * the CSV header is line 1; NDJSON lines count from 1) and each column or key as given. A field left undefined is
 * left as it is; `labels` replaces all labels (NDJSON), `labelCells` sets single labels (CSV `label.<key>`).
 */
export interface ImportRecord {
  row: number;
  /** The column or key names this record had values for, by name; checked against `columns` of its reader. */
  values: Record<string, unknown>;
  /** Shape problems found while reading (a line that is no JSON object, a row with too many cells). */
  problems: FieldProblem[];
}

/**
 * Reads records from a body, streamed: CSV (csv-parse: RFC 4180 quoting, a BOM, CRLF or LF, empty lines skipped)
 * or NDJSON. The header (CSV) and each object's keys (NDJSON) must be among `columns` or start with
 * `prefix` (CSV `label.`): anything else is VALIDATION_FAILED naming it, before any row is planned. Over 20 MiB or
 * 100,000 rows is PAYLOAD_TOO_LARGE.
 */
export async function* readImportRecords(
  body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>,
  format: ImportFormat,
  shape: { columns: readonly string[]; required: string; prefix?: string; checkPrefixed?: (column: string) => FieldProblem | undefined },
): AsyncGenerator<ImportRecord> {
  const limited = limitBytes(body);
  const records = format === 'csv' ? readCsv(limited, shape) : readNdjson(limited, shape);
  let rows = 0;
  for await (const record of records) {
    rows += 1;
    if (rows > importLimits.maxRows) throw tooManyRows();
    yield record;
  }
}

async function* limitBytes(body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>): AsyncGenerator<Buffer> {
  let bytes = 0;
  for await (const chunk of body) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    bytes += buffer.length;
    if (bytes > importLimits.maxBytes) throw tooManyBytes();
    yield buffer;
  }
}

type Shape = Parameters<typeof readImportRecords>[2];

function checkColumn(shape: Shape, column: string, seen: Set<string>): FieldProblem | undefined {
  if (seen.has(column)) return fieldProblem(column, 'appears more than once in the header');
  seen.add(column);
  if (shape.columns.includes(column)) return undefined;
  if (shape.prefix !== undefined && column.startsWith(shape.prefix)) return shape.checkPrefixed?.(column);
  const known = [...shape.columns, ...(shape.prefix ? [`${shape.prefix}<key>`] : [])].join(', ');
  return { field: column, message: `Unknown column ${column}; the columns are ${known}.` };
}

async function* readCsv(body: AsyncIterable<Buffer>, shape: Shape): AsyncGenerator<ImportRecord> {
  const parser = parse({ bom: true, info: true, skip_empty_lines: true, relax_column_count: true });
  const feeding = (async () => {
    try {
      for await (const chunk of body) if (!parser.write(chunk)) await new Promise((resolve) => parser.once('drain', resolve));
      parser.end();
    } catch (error) {
      parser.destroy(error as Error);
    }
  })();
  let header: string[] | undefined;
  // csv-parse counts a CRLF inside a quoted field as two lines; the records' lines are corrected by that count.
  let overcount = 0;
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      let inside = 0;
      for (const cell of record) {
        overcount += count(cell, /\r\n/g);
        inside += count(cell, /\r\n|\r|\n/g);
      }
      const row = info.lines - overcount - inside;
      if (!header) {
        header = record;
        const seen = new Set<string>();
        const problems = header.map((column) => checkColumn(shape, column, seen)).filter((p) => p !== undefined);
        if (!header.includes(shape.required)) problems.push(fieldProblem(shape.required, 'is a required column'));
        if (problems.length > 0) throw validationFailed(problems, problems[0]!.message);
        continue;
      }
      const values: Record<string, unknown> = {};
      const problems: FieldProblem[] = [];
      if (record.length > header.length)
        problems.push({ field: `rows[${row}]`, message: `rows[${row}] has ${record.length} cells; the header has ${header.length}` });
      header.forEach((column, i) => {
        const cell = record[i];
        // An empty cell (or a missing one at the end of a short row) leaves that field as it is.
        if (cell !== undefined && cell !== '') values[column] = cell;
      });
      yield { row, values, problems };
    }
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('CSV_'))
      throw invalidField('body', `The CSV cannot be read: ${(error as Error).message}`);
    throw error;
  } finally {
    parser.destroy();
    await feeding;
  }
  if (!header) throw invalidField('body', 'The CSV has no header row.');
}

async function* readNdjson(body: AsyncIterable<Buffer>, shape: Shape): AsyncGenerator<ImportRecord> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let line = 0;
  const known = new Set<string>();
  function* lines(text: string): Generator<ImportRecord> {
    for (const raw of text.split('\n')) {
      line += 1;
      const unmarked = line === 1 && raw.startsWith('\uFEFF') ? raw.slice(1) : raw;
      const content = unmarked.endsWith('\r') ? unmarked.slice(0, -1) : unmarked;
      if (content.trim() === '') continue;
      const row = line;
      let parsed: unknown;
      try {
        parsed = JSON.parse(content);
      } catch {
        yield { row, values: {}, problems: [{ field: `rows[${row}]`, message: `rows[${row}] is not valid JSON` }] };
        continue;
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        yield { row, values: {}, problems: [{ field: `rows[${row}]`, message: `rows[${row}] must be a JSON object` }] };
        continue;
      }
      for (const key of Object.keys(parsed)) {
        if (known.has(key)) continue;
        const problem = shape.columns.includes(key)
          ? undefined
          : { field: key, message: `Unknown key ${key}; the keys are ${shape.columns.join(', ')}.` };
        if (problem) throw validationFailed([problem], problem.message);
        known.add(key);
      }
      yield { row, values: parsed as Record<string, unknown>, problems: [] };
    }
  }
  for await (const chunk of body) {
    pending += decoder.write(chunk);
    const end = pending.lastIndexOf('\n');
    if (end < 0) continue;
    const complete = pending.slice(0, end);
    pending = pending.slice(end + 1);
    yield* lines(complete);
  }
  pending += decoder.end();
  if (pending !== '') yield* lines(pending);
}

function count(text: string, pattern: RegExp): number {
  // Most cells hold no line break: a scan is cheaper than a match (an applied import reads its file twice).
  if (!text.includes('\n') && !text.includes('\r')) return 0;
  return text.match(pattern)?.length ?? 0;
}
