import type { Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * PostgreSQL: the things list filtered by gateway (SPEC section 16, `GET /things?gateway_tuid=`, the gateway page)
 * reads that gateway's things through `things_organization_gateway` instead of every thing of the organization
 * (measured at 100,000 things behind 1,000 gateways: a sequential scan of 100,000 rows, 30 to 60 ms, became an index
 * probe of 100, under 1 ms; the sort by last seen then orders those 100 in memory).
 *
 * Why not `last_heard_at` too (an index that would also serve the sort): it changes with nearly every uplink, and an
 * indexed column that changes makes each summary update a non-HOT update that writes every index of `things`
 * (migrations 0007 and 0009). `last_heard_gateway_tuid` changes only when a thing is heard through another gateway,
 * so ordinary uplinks stay HOT. The unfiltered sort by last seen stays a top-N sort of the organization's things.
 *
 * SQLite is left as it is (the task asked PostgreSQL): its summary update sets `last_heard_gateway_tuid` in every
 * statement, and whether SQLite then writes the index on every uplink is not measured yet.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return;
  await db.schema.createIndex('things_organization_gateway').on('things').columns(['organization_id', 'last_heard_gateway_tuid']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  if (isSqlite(db)) return;
  await db.schema.dropIndex('things_organization_gateway').execute();
}
