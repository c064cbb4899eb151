import type { Kysely } from 'kysely';
import { autoIncrementId } from './dialect.js';

/** Alert periods (SPEC section 7): one row per period of one type on one thing; `closed_at` null while active. */
export async function up(db: Kysely<unknown>): Promise<void> {
  await autoIncrementId(db, db.schema.createTable('alerts'))
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('alert_type', 'varchar(64)', (c) => c.notNull())
    .addColumn('opened_at', 'bigint', (c) => c.notNull())
    .addColumn('closed_at', 'bigint')
    .execute();
  await db.schema.createIndex('alerts_tuid_opened').on('alerts').columns(['tuid', 'opened_at']).execute();
  await db.schema.createIndex('alerts_organization_closed').on('alerts').columns(['organization_id', 'closed_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('alerts').execute();
}
