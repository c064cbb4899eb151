import type { Kysely } from 'kysely';

/**
 * Names and labels of things (SPEC section 12). `things.name` (null when unset) and `things.labels` (the labels as
 * a JSON object, `{}` when none) are what every read shows; `thing_labels` holds one row per label, keyed so that
 * `GET /things?label=k:v` is a probe of its primary key (organization, key, value) followed by the things of that
 * label in TUID order, on both stores alike. The two are written together, in one transaction, only by
 * src/store/thing-labels-sql.ts (docs/decisions.md, "Labels: a row per label").
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('things').addColumn('name', 'varchar(200)').execute();
  await db.schema
    .alterTable('things')
    .addColumn('labels', 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .createTable('thing_labels')
    .addColumn('organization_id', 'varchar(40)', (c) => c.notNull())
    .addColumn('label_key', 'varchar(63)', (c) => c.notNull())
    .addColumn('label_value', 'varchar(200)', (c) => c.notNull())
    .addColumn('tuid', 'varchar(64)', (c) => c.notNull())
    .addPrimaryKeyConstraint('thing_labels_pk', ['organization_id', 'label_key', 'label_value', 'tuid'])
    .execute();
  // A thing's labels are replaced whole: found by TUID.
  await db.schema.createIndex('thing_labels_tuid').on('thing_labels').columns(['tuid']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('thing_labels').execute();
  await db.schema.alterTable('things').dropColumn('labels').execute();
  await db.schema.alterTable('things').dropColumn('name').execute();
}
