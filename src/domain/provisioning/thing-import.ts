import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';
import { AppError, conflict, validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { checkLabelKey } from '../things/thing-labels.js';
import { emitThingChanged } from '../things/thing-changes.js';
import { runHeavyWork } from '../workload/heavy-work-gate.js';
import type { RequestWork } from '../workload/request-work.js';
import type { ImportFormat } from './import-limits.js';
import { readImportRecords, type ImportRecord } from './import-reader.js';
import { labelColumnPrefix, planThingRow, thingColumns } from './thing-import-plan.js';
import type { ImportedChange, ImportPlan, PlanRow, ThingImportReads, ThingImportWrite, ThingImportWrites } from './thing-import-types.js';

/** Rows planned (and, when applying, written) per round of store reads: memory stays flat however long the file. */
export const importChunkRows = 1000;

// An applied import that loses a race with a single call (a thing claimed or moved between its read and its
// write) starts again from the first row this often before giving up with CONFLICT.
const maxAttempts = 3;

export interface ThingImportInput {
  body: AsyncIterable<Buffer | string> | Iterable<Buffer | string>;
  format: ImportFormat;
  dryRun: boolean;
  /** Creates groups the file names and the organization lacks, instead of refusing those rows. */
  createGroups: boolean;
  /** Leaves the `unchanged` rows out of the plan's rows (the counts still cover them). */
  onlyChanged: boolean;
}

/**
 * Imports things (SPEC section 12, POST /things/import and GraphQL importThings): reads the file streamed, then plans
 * every row by the single calls' rules (thing-import-plan.ts) and, unless a dry run, applies the plan all or none
 * in one transaction, planning again there against the things as they are then (locked on PostgreSQL), so that a
 * single call racing the import leaves either its result or the import's, never a mix. A file with any error row
 * applies nothing: VALIDATION_FAILED naming every bad field as `rows[<row>].<column>`. Every change is written as
 * the single calls write it (installation history with the caller as `responsible`) and emitted as
 * `thingChanged` after commit. Runs in one of the caller's heavy-work slots (HEAVY_REQUESTS_PER_CALLER).
 */
export async function importThings(
  deps: Pick<DomainDeps, 'store' | 'clock' | 'reservedTuids' | 'heavyWork'> & Partial<Pick<DomainDeps, 'events'>>,
  principal: Principal,
  input: ThingImportInput,
  work: RequestWork = {},
): Promise<ImportPlan> {
  return runHeavyWork(deps, principal, work, async () => {
    const shape = {
      columns: input.format === 'csv' ? thingColumns : [...thingColumns, 'labels'],
      required: 'tuid',
      prefix: input.format === 'csv' ? labelColumnPrefix : undefined,
      checkPrefixed: (column: string) => checkLabelKey(column, column.slice(labelColumnPrefix.length)),
    };
    // The file is planned as it streams in (a header naming an unknown column is refused before any store read; a
    // file over 100,000 rows or 20 MiB when the reader gets there, having written nothing). Applying, its bytes are
    // kept (at most 20 MiB, outside the JS heap) and read again inside the transaction: parsed records would hold
    // five times as much of the heap until the end of the apply (docs/provisioning.md, "Memory").
    const bytes: Buffer[] = [];
    const body = input.dryRun ? input.body : keptIn(input.body, bytes);
    // What the answer lists: with `?rows=changed` no `unchanged` row is kept at all. Error rows are always kept.
    const listed = (row: PlanRow) => !input.onlyChanged || row.action !== 'unchanged';
    // Applying, the first plan only decides whether anything is in error: its other rows are counted, not kept (the
    // plan answered is the one made inside the transaction).
    const keep = input.dryRun ? listed : (row: PlanRow) => row.action === 'error';
    const planned = await planRecords(
      deps,
      principal,
      input,
      deps.store.thingImport.reads,
      readImportRecords(body, input.format, shape),
      keep,
    );
    if (input.dryRun || planned.counts.error > 0) return finish(input, planned.rows, planned.counts, false);
    for (let attempt = 1; ; attempt += 1) {
      const at = deps.clock.now();
      try {
        const operation = { organizationId: principal.organizationId, action: 'thing.import', target: { type: 'things', id: null } };
        const applied = await audited(deps, principal, operation, async () => {
          const applied = await deps.store.thingImport.write((writes) =>
            planRecords(deps, principal, input, writes, readImportRecords(bytes, input.format, shape), listed, {
              writes,
              at,
              responsible: principal.responsible,
            }),
          );
          const { create, update, unchanged } = applied.counts;
          return { result: applied, details: auditFields({ format: input.format, create, update, unchanged }) };
        });
        for (const plan of applied.rows) {
          if (plan.changes)
            emitThingChanged(
              deps.events,
              { organizationId: principal.organizationId, tuid: plan.tuid },
              plan.changes,
              principal.responsible,
            );
        }
        return finish(input, applied.rows, applied.counts, true);
      } catch (error) {
        if (error instanceof RowsInError) throw rowsInError(error.rows);
        if (!(error instanceof RaceLost)) throw error;
        if (attempt >= maxAttempts) throw conflict('The things of this import are changing concurrently; retry the import.');
      }
    }
  });
}

/** Passes the body's chunks on, keeping each in `kept`, so that the apply can read the file again. */
async function* keptIn(body: ThingImportInput['body'], kept: Buffer[]): AsyncGenerator<Buffer> {
  for await (const chunk of body) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    kept.push(buffer);
    yield buffer;
  }
}

/** Thrown inside the write transaction to roll it back: a row in error (the plan goes out as 400), or a lost race. */
class RaceLost extends Error {}
class RowsInError extends Error {
  constructor(readonly rows: PlanRow[]) {
    super('rows in error');
  }
}

interface Planned {
  /** The rows `keep` took; the counts cover all. */
  rows: PlanRow[];
  counts: ImportPlan['counts'];
}

/**
 * Plans the records a chunk at a time: reads the chunk's things and the groups it names, plans each row, and with
 * `apply` writes the chunk's changes (creating its groups first) before the next. With `apply`, a row in error
 * rolls the whole transaction back with the plan (RowsInError, caught by the caller's caller as VALIDATION_FAILED).
 * Only the plan rows `keep` takes outlive their chunk, and of those only the plan's line (not what was written nor
 * the thing as read): what an import holds is its records and the rows it answers, whatever it writes.
 */
async function planRecords(
  deps: Pick<DomainDeps, 'reservedTuids'>,
  principal: Principal,
  input: Pick<ThingImportInput, 'createGroups'>,
  reads: ThingImportReads,
  records: AsyncIterable<ImportRecord> | Iterable<ImportRecord>,
  keep: (row: PlanRow) => boolean,
  apply?: { writes: ThingImportWrites; at: number; responsible: string },
): Promise<Planned> {
  const { organizationId } = principal;
  const firstRows = new Map<string, number>();
  const groups = new Map<string, boolean>();
  const rows: PlanRow[] = [];
  const counts = { create: 0, update: 0, unchanged: 0, error: 0 };
  let chunk: ImportRecord[] = [];
  const flush = async () => {
    const tuids = chunk.map((r) => r.values['tuid']).filter((t): t is string => typeof t === 'string' && t !== '');
    const things = await reads.things([...new Set(tuids)]);
    const named = chunk.map((r) => r.values['group_id']).filter((g): g is string => typeof g === 'string' && !groups.has(g));
    if (named.length > 0) {
      const found = await reads.groups(organizationId, [...new Set(named)]);
      for (const g of named) groups.set(g, found.has(g));
    }
    const toCreate: string[] = [];
    const writes: Omit<ThingImportWrite, 'at' | 'responsible'>[] = [];
    const changed: ImportedChange[] = [];
    for (const record of chunk) {
      const tuid = typeof record.values['tuid'] === 'string' ? record.values['tuid'] : '';
      const firstRowOfTuid = tuid === '' ? undefined : firstRows.get(tuid);
      if (tuid !== '' && firstRowOfTuid === undefined) firstRows.set(tuid, record.row);
      const planned = planThingRow(record, {
        organizationId,
        current: things.get(tuid),
        groupExists: (groupId) => groups.get(groupId) === true,
        createGroups: input.createGroups,
        reservedTuids: deps.reservedTuids,
        firstRowOfTuid,
      });
      if (planned.createsGroup !== undefined) {
        groups.set(planned.createsGroup, true);
        toCreate.push(planned.createsGroup);
      }
      counts[planned.plan.action] += 1;
      if (planned.write) writes.push(planned.write);
      if (planned.write && planned.plan.changes) {
        const groupId = planned.write.groupId !== undefined ? planned.write.groupId : (planned.write.before?.groupId ?? null);
        changed.push({ organizationId, tuid: planned.write.tuid, groupId, changes: planned.plan.changes });
      }
      if (keep(planned.plan)) rows.push(planned.plan);
    }
    chunk = [];
    if (!apply || counts.error > 0) return;
    for (const groupId of toCreate) await apply.writes.createGroup({ organizationId, groupId, createdAt: apply.at });
    const stamped = writes.map((write) => ({ ...write, at: apply.at, responsible: apply.responsible }));
    if (!(await apply.writes.writeThings(stamped))) throw new RaceLost();
    await apply.writes.announceChanges(changed);
  };
  for await (const record of records) {
    chunk.push(record);
    if (chunk.length >= importChunkRows) await flush();
  }
  if (chunk.length > 0) await flush();
  if (apply && counts.error > 0) throw new RowsInError(rows);
  return { rows, counts };
}

function finish(input: ThingImportInput, rows: PlanRow[], counts: ImportPlan['counts'], applied: boolean): ImportPlan {
  if (!input.dryRun && !applied) throw rowsInError(rows);
  return { dryRun: input.dryRun, applied, counts, rows };
}

/** VALIDATION_FAILED naming every bad field of every bad row as `rows[<row>].<column>`, with the single call's message. */
function rowsInError(planned: PlanRow[]): AppError {
  const problems: FieldProblem[] = [];
  for (const plan of planned) {
    for (const problem of plan.errors ?? []) {
      const field = problem.field.startsWith('rows[') ? problem.field : `rows[${plan.row}].${problem.field}`;
      problems.push({ field, message: problem.message });
    }
  }
  const bad = planned.filter((plan) => plan.action === 'error').length;
  return validationFailed(problems, `${bad} row${bad === 1 ? ' is' : 's are'} in error; nothing was applied.`);
}
