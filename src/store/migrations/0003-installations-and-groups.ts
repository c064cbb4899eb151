import type { Kysely } from 'kysely';
import { autoIncrementId } from './dialect.js';

/**
 * Deployment groups and the installation status history (SPEC section 3). A thing's current status and group
 * live on the things row; the history keeps every status it had, newest read first by id.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('groups')
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
    .addColumn('group_id', 'varchar(64)', (c) => c.notNull())
    .addColumn('description', 'varchar(1024)')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('groups_pkey', ['organization_id', 'group_id'])
    .execute();

  await autoIncrementId(db, db.schema.createTable('installation_history'))
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addColumn('installation_status', 'varchar(20)', (c) => c.notNull())
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('responsible', 'varchar(320)', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('installation_history_tuid').on('installation_history').columns(['tuid', 'id']).execute();

  // Things claimed by uplinks before this migration start their history here, as "new" when first seen.
  await db
    .insertInto('installation_history' as never)
    .columns(['organization_id', 'tuid', 'installation_status', 'timestamp', 'responsible'] as never)
    .expression(
      (db as Kysely<{ things: { organization_id: string; tuid: string; created_at: number } }>)
        .selectFrom('things')
        .select((eb) => [
          'organization_id',
          'tuid',
          eb.val('new').as('installation_status'),
          'created_at',
          eb.val('uplink').as('responsible'),
        ]) as never,
    )
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installation_history').execute();
  await db.schema.dropTable('groups').execute();
}
