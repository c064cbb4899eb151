import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, validationFailed, type FieldProblem } from '../errors.js';
import { requireGroupRef } from '../groups/group-id-rules.js';
import { groupNotFound } from '../groups/group-service.js';
import { shownGroupId } from '../groups/unassigned-group.js';
import { requireThing } from '../things/thing-access.js';
import type { ExportQuery } from './export-types.js';
import {
  csvColumns,
  csvHeader,
  csvRecord,
  exportContentDisposition,
  exportFormats,
  exportMediaTypes,
  ndjsonRecord,
  type ExportFormat,
} from './export-format.js';

/** Most message ids one export may name (each may add catalog columns). */
export const exportMessageIdLimit = 100;
const largestTsmId = 2 ** 31 - 1;

export interface MessageExportInput {
  /** Unix seconds of tsmTs, inclusive, as the message list filters. */
  from?: number;
  to?: number;
  messageIds?: readonly number[];
  eventIds?: readonly number[];
  /** `ndjson` (the default) or `csv`. */
  format?: string;
  /** CSV: write text cells as sent, without neutralizing formulas (export-format.ts); for programs, not spreadsheets. */
  raw?: boolean;
}

/** An export ready to stream: checked and authorized, nothing read yet. */
export interface MessageExport {
  format: ExportFormat;
  contentType: string;
  contentDisposition: string;
  /**
   * The body, one chunk per batch of rows the store reads. Pulled, never pushed: the next batch is read only when
   * the consumer asks for the next chunk, so a reader that stops reading stops the reads; `return()` ends the
   * store's read and gives back what it held (on PostgreSQL, a connection).
   */
  chunks: AsyncIterable<string>;
}

/**
 * A thing's messages as NDJSON or CSV, oldest first (tsmTs, then tsmId). Every input problem is VALIDATION_FAILED
 * naming the field, and a thing the caller cannot see NOT_FOUND, all before anything is read or sent.
 */
export async function exportThingMessages(
  deps: ExportDeps,
  principal: Principal,
  input: MessageExportInput & { tuid: string },
): Promise<MessageExport> {
  const checked = checkExportInput(input);
  await requireThing(deps, principal, input.tuid);
  return prepareExport(deps, principal, checked, [input.tuid], exportContentDisposition('thing', input.tuid, checked.format));
}

/**
 * The messages of a group's things (`unassigned`: the things in no group) as one export: thing by thing in TUID
 * order, each oldest first. Membership is the group's now (as GET /groups/{groupid}/things lists it); each row's
 * `deploymentGroupId` still says where the message arrived. NOT_FOUND for a group the caller cannot see.
 */
export async function exportGroupMessages(
  deps: ExportDeps,
  principal: Principal,
  input: MessageExportInput & { groupId: string },
): Promise<MessageExport> {
  const checked = checkExportInput(input);
  const groupId = requireGroupRef('groupId', input.groupId);
  const { organizationId } = principal;
  if (groupId !== null && !(await deps.store.groups.get(organizationId, groupId))) throw groupNotFound(groupId);
  // The member list is the one thing held for the whole export: TUIDs, bounded by the group's size, not its messages.
  const tuids = (await deps.store.things.listInGroup(organizationId, groupId)).map((thing) => thing.tuid);
  tuids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return prepareExport(deps, principal, checked, tuids, exportContentDisposition('group', shownGroupId(groupId), checked.format));
}

type ExportDeps = Pick<DomainDeps, 'store' | 'heavyWork'>;

interface CheckedInput {
  format: ExportFormat;
  raw: boolean;
  filter: Omit<ExportQuery, 'tuids'>;
}

function checkExportInput(input: MessageExportInput): CheckedInput {
  const problems: FieldProblem[] = [];
  const format = input.format ?? 'ndjson';
  if (!(exportFormats as readonly string[]).includes(format))
    problems.push(fieldProblem('format', `must be one of ${exportFormats.join(', ')}`));
  for (const field of ['from', 'to'] as const) {
    const value = input[field];
    if (value !== undefined && (!Number.isInteger(value) || value < 0))
      problems.push(fieldProblem(field, 'must be Unix seconds (a non-negative integer)'));
  }
  if (input.from !== undefined && input.to !== undefined && input.from > input.to)
    problems.push(fieldProblem('from', 'must not be after to'));
  const ids = input.messageIds;
  if (ids?.some((id) => !Number.isInteger(id) || id < 0 || id > largestTsmId))
    problems.push(fieldProblem('messageIds', `must be integers from 0 to ${largestTsmId}`));
  else if (ids && new Set(ids).size > exportMessageIdLimit)
    problems.push(fieldProblem('messageIds', `must name at most ${exportMessageIdLimit} message ids`));
  if (input.eventIds?.some((id) => !Number.isInteger(id) || id < 0 || id > largestTsmId))
    problems.push(fieldProblem('eventIds', `must be integers from 0 to ${largestTsmId}`));
  if (problems.length > 0) throw validationFailed(problems);
  const messageIds = ids && [...new Set(ids)];
  const eventIds = input.eventIds && [...new Set(input.eventIds)];
  return { format: format as ExportFormat, raw: input.raw === true, filter: { from: input.from, to: input.to, messageIds, eventIds } };
}

function prepareExport(
  deps: ExportDeps,
  principal: Principal,
  input: CheckedInput,
  tuids: readonly string[],
  contentDisposition: string,
): MessageExport {
  return {
    format: input.format,
    contentType: exportMediaTypes[input.format],
    contentDisposition,
    chunks: heldInSlot(deps, principal, () => exportChunks(deps, input, tuids)),
  };
}

/**
 * The chunks, read in one of the caller's heavy-work slots (workload/), taken at the first pull and given back when
 * the stream ends, fails or is dropped: an export nobody pulls (HEAD) never holds one, and a caller over the cap is
 * refused before the first byte, so the refusal is still an error answer (429 with Retry-After).
 */
async function* heldInSlot(deps: ExportDeps, principal: Principal, chunks: () => AsyncGenerator<string>): AsyncGenerator<string> {
  const release = deps.heavyWork?.enter(principal, {}) ?? (() => {});
  try {
    yield* chunks();
  } finally {
    release();
  }
}

async function* exportChunks(deps: ExportDeps, input: CheckedInput, tuids: readonly string[]): AsyncGenerator<string> {
  let header = '';
  let render: (body: string) => string = ndjsonRecord;
  if (input.format === 'csv') {
    const columns = csvColumns(input.filter.messageIds);
    header = csvHeader(columns);
    const options = { raw: input.raw };
    render = (body) => csvRecord(columns, body, options);
  }
  const batches = deps.store.messages.exportBodies({ ...input.filter, tuids })[Symbol.asyncIterator]();
  try {
    // The first batch is awaited before anything is yielded: an export the store cannot start (PostgreSQL's export
    // connections all taken, the store unreachable) fails before the first byte, so it is still an error answer.
    let next = await batches.next();
    if (header) yield header;
    for (; !next.done; next = await batches.next()) {
      let chunk = '';
      for (const body of next.value) chunk += render(body);
      yield chunk;
    }
  } finally {
    await batches.return?.();
  }
}
