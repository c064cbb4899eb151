import type { StoredMessage } from '../../domain/messages/message-types.js';
import { extractNumericFields } from '../../domain/series/rollup-rules.js';
import type { RollupFigures } from '../../domain/series/series-types.js';
import type { Statement } from './postgres-statements.js';
import { groupRollupColumns, RollupBatch, rollupMergeSql, thingRollupColumns } from './rollup-batch.js';

/**
 * The statements that merge the numeric fields of a batch's stored messages into the hourly rollups, run inside
 * the batch's transaction (a thing's only for messages older than its rollup watermark, read under the batch's
 * lock of the thing's row): pre-aggregated per bucket, then one `unnest` upsert per table (each key once per
 * statement, as ON CONFLICT DO UPDATE requires, and in key order so concurrent instances lock rows in the same
 * order). None when no message carries a numeric field. The batch writer sends them with its own last writes.
 */
export function rollupStatementsPostgres(stored: readonly StoredMessage[], rollupWatermarkOf: (tuid: string) => number): Statement[] {
  const rollups = new RollupBatch();
  for (const message of stored) {
    const late = message.tsmTs < rollupWatermarkOf(message.tuid);
    for (const field of extractNumericFields(message.message))
      rollups.add(message.organizationId, message.tuid, message.groupId, message.tsmId, message.tsmTs, field.name, field.value, late);
  }
  if (rollups.size === 0) return [];
  const statements: Statement[] = [];
  const things = rollups.thingRows(true);
  if (things.length > 0)
    statements.push({
      text: `insert into thing_rollups (${thingRollupColumns})
     select * from unnest($1::text[], $2::int[], $3::text[], $4::bigint[], $5::text[], $6::bigint[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[], $12::float8[], $13::float8[])
     on conflict (tuid, tsm_id, field, hour_start) do update set ${rollupMergeSql('postgres', 'thing_rollups')}`,
      values: [
        things.map((r) => r.tuid),
        things.map((r) => r.tsmId),
        things.map((r) => r.field),
        things.map((r) => r.hourStart),
        things.map((r) => r.organizationId),
        ...figureColumns(things),
      ],
    });
  const groups = rollups.groupRows(true);
  statements.push({
    text: `insert into group_rollups (${groupRollupColumns})
     select * from unnest($1::text[], $2::text[], $3::int[], $4::text[], $5::bigint[], $6::bigint[], $7::float8[], $8::float8[], $9::float8[], $10::float8[], $11::float8[], $12::float8[], $13::float8[])
     on conflict (organization_id, group_id, tsm_id, field, hour_start) do update set ${rollupMergeSql('postgres', 'group_rollups')}`,
    values: [
      groups.map((r) => r.organizationId),
      groups.map((r) => r.groupId),
      groups.map((r) => r.tsmId),
      groups.map((r) => r.field),
      groups.map((r) => r.hourStart),
      ...figureColumns(groups),
    ],
  });
  return statements;
}

function figureColumns(list: readonly RollupFigures[]) {
  return [
    list.map((r) => r.count),
    list.map((r) => r.min),
    list.map((r) => r.max),
    list.map((r) => r.sum),
    list.map((r) => r.first),
    list.map((r) => r.firstTs),
    list.map((r) => r.last),
    list.map((r) => r.lastTs),
  ];
}
