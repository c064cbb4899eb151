import { sql, type RawBuilder, type Transaction } from 'kysely';
import { sameLabels, type Labels } from '../domain/things/thing-labels.js';
import type { Thing } from '../domain/things/thing-types.js';
import type { Schema } from './schema.js';

/**
 * The one writer of a thing's name and labels: the things row (`name`, `labels` as JSON for every read) and its
 * rows in thing_labels (for the label filter) change together, inside the caller's transaction. `name` or
 * `labels` undefined leaves that one as it is; labels are replaced whole.
 */
export async function writeNameAndLabels(
  trx: Transaction<Schema>,
  thing: Pick<Thing, 'tuid' | 'organizationId' | 'name' | 'labels'>,
  change: { name?: string | null; labels?: Labels },
): Promise<void> {
  const nameChanges = change.name !== undefined && change.name !== thing.name;
  const labelsChange = change.labels !== undefined && !sameLabels(change.labels, thing.labels);
  if (!nameChanges && !labelsChange) return;
  await trx
    .updateTable('things')
    .set({
      ...(nameChanges ? { name: change.name } : {}),
      ...(labelsChange ? { labels: JSON.stringify(change.labels) } : {}),
    })
    .where('tuid', '=', thing.tuid)
    .execute();
  if (!labelsChange) return;
  await trx.deleteFrom('thing_labels').where('organization_id', '=', thing.organizationId).where('tuid', '=', thing.tuid).execute();
  const rows = Object.entries(change.labels!).map(([key, value]) => ({
    organization_id: thing.organizationId,
    label_key: key,
    label_value: value,
    tuid: thing.tuid,
  }));
  if (rows.length > 0) await trx.insertInto('thing_labels').values(rows).execute();
}

/** The TUIDs of the organization's things that carry this label: a subquery for the thing lists. */
export function labelledTuids(organizationId: string, label: { key: string; value: string }): RawBuilder<string> {
  return sql<string>`(select l.tuid from thing_labels l where l.organization_id = ${organizationId} and l.label_key = ${label.key} and l.label_value = ${label.value})`;
}
