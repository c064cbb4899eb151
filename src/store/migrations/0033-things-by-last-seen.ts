import type { Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * SPEC section 16's reads at fleet scale (issue 38; `npm run bench:studio`, 100,000 things behind 1,000 gateways).
 *
 * `things_organization_heard` (both stores): the things list sorted by last seen walks the organization's things in
 * that order and stops after a page (things-store.ts lists the never-heard ones apart, after the others), where a
 * top-N sort read all 100,000 things per page (SQLite median 23 ms, PostgreSQL 114 ms; after: under 1 ms).
 *
 * The cost, accepted here: `last_heard_at` changes with nearly every uplink, so each thing's summary update now also
 * moves its entry in this index, and on PostgreSQL the update is no longer HOT (migrations 0007, 0009, 0030 kept it
 * out for that reason). Measured and recorded in docs/decisions.md ("Fleet-scale reads").
 *
 * `things_organization_gateway` on SQLite too (PostgreSQL has it since 0030): the gateway filter and its total, and
 * the gateways list's page of gateways, read one gateway's things instead of every thing of the organization. On
 * SQLite it also holds `last_heard_at`, so the gateways list folds a page of gateways from the index alone: SQLite
 * rewrites an index whenever an UPDATE's SET names one of its columns, and the summary update names the gateway in
 * every statement, so the index is rewritten with each update whether or not it holds the time (measured: the
 * same CPU for 100,000 updates with either).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('things_organization_heard').on('things').columns(['organization_id', 'last_heard_at', 'tuid']).execute();
  if (isSqlite(db)) {
    await db.schema
      .createIndex('things_organization_gateway')
      .on('things')
      .columns(['organization_id', 'last_heard_gateway_tuid', 'last_heard_at'])
      .execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('things_organization_heard').execute();
  if (isSqlite(db)) await db.schema.dropIndex('things_organization_gateway').execute();
}
