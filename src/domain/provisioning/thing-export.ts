import { stringify } from 'csv-stringify/sync';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, invalidField, validationFailed } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { shownGroupId } from '../groups/unassigned-group.js';
import { countThings, listThings, type ThingListInput } from '../things/thing-queries.js';
import type { Thing } from '../things/thing-types.js';
import { labelColumnPrefix, thingColumns } from './thing-import-plan.js';
import type { ImportFormat } from './import-limits.js';

/** Things per page of an export: one store read each, pulled as the response drains. */
const exportPageSize = 1000;

export interface ThingExport {
  format: ImportFormat;
  contentType: string;
  contentDisposition: string;
  chunks: AsyncIterable<string>;
}

/**
 * The caller's things as an import file (SPEC section 12, GET /things/export): the same columns the import reads
 * (CSV: `tuid, name, group_id, installation_status` and a `label.<key>` column per key the organization uses;
 * NDJSON: those keys with `labels`), filtered as GET /things filters, by TUID. Values are written exactly as stored
 * (no spreadsheet-formula escaping), so that importing the export plans every row `unchanged`. Pulled a page at a
 * time. The filters are checked before the first byte (VALIDATION_FAILED).
 */
export async function exportThings(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: Omit<ThingListInput, 'limit' | 'cursor'> & { format?: string },
): Promise<ThingExport> {
  const format = (input.format ?? 'csv') as ImportFormat;
  if (format !== 'csv' && format !== 'ndjson') throw invalidField('format', 'format must be csv or ndjson');
  const { format: _format, ...filter } = input;
  const first = await listThings(deps, principal, { ...filter, limit: exportPageSize });
  const labelKeys = format === 'csv' ? await deps.store.things.labelKeys(principal.organizationId) : [];
  const header = [...thingColumns, ...labelKeys.map((key) => `${labelColumnPrefix}${key}`)];
  const render = (things: readonly Thing[]) =>
    format === 'csv'
      ? stringify(
          things.map((t) => [
            t.tuid,
            t.name ?? '',
            shownGroupId(t.groupId),
            t.installationStatus,
            ...labelKeys.map((k) => t.labels[k] ?? ''),
          ]),
          { record_delimiter: 'windows' },
        )
      : things
          .map((t) =>
            JSON.stringify({
              tuid: t.tuid,
              name: t.name,
              group_id: shownGroupId(t.groupId),
              installation_status: t.installationStatus,
              labels: t.labels,
            }),
          )
          .join('\n') + (things.length > 0 ? '\n' : '');
  async function* chunks(): AsyncGenerator<string> {
    if (format === 'csv') yield stringify([header], { record_delimiter: 'windows' });
    let page = first;
    for (;;) {
      if (page.things.length > 0) yield render(page.things);
      if (page.nextCursor === null) return;
      page = await listThings(deps, principal, { ...filter, limit: exportPageSize, cursor: page.nextCursor });
    }
  }
  const extension = format === 'csv' ? 'csv' : 'ndjson';
  return {
    format,
    contentType: format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
    contentDisposition: `attachment; filename="things.${extension}"`,
    chunks: chunks(),
  };
}

/** The most things an export answered whole, in one response body (GraphQL `thingsExport`), rather than streamed. */
export const wholeExportLimit = 10_000;

/**
 * The same export as one text (GraphQL `thingsExport`, the studio's export button: a browser session has no REST
 * token). Held in memory, so bounded: more than `wholeExportLimit` things is VALIDATION_FAILED naming `filter`, and
 * GET /things/export (streamed) or `thingdesk things export` takes any number.
 */
export async function exportThingsWhole(
  deps: Pick<DomainDeps, 'store' | 'clock'>,
  principal: Principal,
  input: Omit<ThingListInput, 'limit' | 'cursor'> & { format?: string },
): Promise<string> {
  const { total } = await countThings(deps, principal, input);
  if (total > wholeExportLimit) {
    throw validationFailed([
      fieldProblem(
        'filter',
        `matches ${total} things; at most ${wholeExportLimit} are exported here: narrow it, or use GET /things/export`,
      ),
    ]);
  }
  let text = '';
  for await (const chunk of (await exportThings(deps, principal, input)).chunks) text += chunk;
  return text;
}
