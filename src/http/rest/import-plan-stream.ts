import { Readable } from 'node:stream';
import type { ImportPlan, PlanRow } from '../../domain/provisioning/thing-import-types.js';

/** Rows per chunk written: a chunk is some 50 KB, few enough writes, far below what a socket buffers. */
const rowsPerChunk = 200;

/**
 * The import plan's answer `{"data": {...}}` as a stream of JSON text, the bytes fastify's serializer would write
 * for the response schema (ImportPlanSchema: its keys in its order, nothing else). A plan of 100,000 rows is tens
 * of megabytes of JSON: built as one string it doubled what the answer held until the last byte was sent
 * (docs/provisioning.md, "Memory"). Pulled by the response (fastify pipes it: nothing more is made while the
 * socket's buffer is full), and each row is let go once written, so the heap shrinks as the answer goes out.
 * The plan is the stream's from here on: its `rows` are emptied.
 */
export function importPlanStream(plan: ImportPlan): Readable {
  return Readable.from(planChunks(plan), { objectMode: false });
}

function* planChunks(plan: ImportPlan): Generator<string> {
  const { create, update, unchanged, error } = plan.counts;
  const counts = JSON.stringify({ create, update, unchanged, error });
  yield `{"data":{"dry_run":${plan.dryRun},"applied":${plan.applied},"counts":${counts},"rows":[`;
  const rows = plan.rows;
  for (let start = 0; start < rows.length; start += rowsPerChunk) {
    const end = Math.min(rows.length, start + rowsPerChunk);
    const parts: string[] = [];
    for (let i = start; i < end; i += 1) {
      parts.push(rowJson(rows[i]!));
      rows[i] = undefined as unknown as PlanRow;
    }
    yield `${start === 0 ? '' : ','}${parts.join(',')}`;
  }
  rows.length = 0;
  yield ']}}';
}

/** One row as the schema writes it: row, tuid, action, then changes (`{from, to}` each) and errors when present. */
function rowJson(row: PlanRow): string {
  const line: Record<string, unknown> = { row: row.row, tuid: row.tuid, action: row.action };
  if (row.changes !== undefined)
    line.changes = Object.fromEntries(Object.entries(row.changes).map(([field, change]) => [field, { from: change.from, to: change.to }]));
  if (row.errors !== undefined) line.errors = row.errors.map((problem) => ({ field: problem.field, message: problem.message }));
  return JSON.stringify(line);
}
