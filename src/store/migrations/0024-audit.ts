import type { Kysely } from 'kysely';

/**
 * SPEC 14, the audit log. `audit_entries`: one row per entry, numbered per organization from 1 (`id`), chained by
 * `hash` (src/domain/audit/audit-chain.ts); `changes` is the JSON text as hashed (text, not jsonb, so it reads back
 * byte for byte). `audit_heads`: per organization the last entry's id and hash (a truncation of the newest entries
 * shows against it; appends lock this row on PostgreSQL) and the anchor left by expiry (the last expired entry's id and
 * hash, from which the remaining chain verifies).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('audit_entries')
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('id', 'bigint', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_type', 'varchar(20)', (c) => c.notNull())
    .addColumn('actor_id', 'varchar(320)')
    .addColumn('actor_label', 'varchar(320)')
    .addColumn('via', 'varchar(10)', (c) => c.notNull())
    .addColumn('request_id', 'varchar(200)')
    .addColumn('address', 'varchar(100)')
    .addColumn('action', 'varchar(100)', (c) => c.notNull())
    .addColumn('target_type', 'varchar(40)', (c) => c.notNull())
    .addColumn('target_id', 'varchar(320)')
    .addColumn('changes', 'text')
    .addColumn('outcome', 'varchar(10)', (c) => c.notNull())
    .addColumn('hash', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('audit_entries_pk', ['organization_id', 'id'])
    .execute();
  await db.schema
    .createIndex('audit_entries_target')
    .on('audit_entries')
    .columns(['organization_id', 'target_type', 'target_id', 'id'])
    .execute();
  await db.schema.createIndex('audit_entries_at').on('audit_entries').columns(['organization_id', 'at']).execute();
  await db.schema
    .createTable('audit_heads')
    .addColumn('organization_id', 'varchar(40)', (c) => c.primaryKey())
    .addColumn('last_id', 'bigint', (c) => c.notNull())
    .addColumn('last_hash', 'varchar(64)', (c) => c.notNull())
    .addColumn('anchor_id', 'bigint', (c) => c.notNull())
    .addColumn('anchor_hash', 'varchar(64)', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('audit_heads').execute();
  await db.schema.dropTable('audit_entries').execute();
}
