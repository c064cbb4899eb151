import { sql, type Kysely } from 'kysely';
import { isSqlite } from './dialect.js';

/**
 * Each organization's number of things, kept by the database itself (issue 38): the unfiltered total of the things
 * list (`GET /things`, every page) reads one row instead of counting up to 100,000 things (PostgreSQL: 21.8 ms
 * quiet, over the 50 ms p99 under load; `npm run bench:studio`).
 *
 * Triggers, not writes in the store code: things are created by ingest (both batch writers, in raw SQL), import,
 * installer claims and group assignment, and deleted by release and by an organization's deletion (cascade); a
 * trigger sees every one of them, and any path added later, so the count cannot drift.
 *
 * PostgreSQL: one statement-level trigger per event with its transition table, so an ingest batch claiming 500
 * things adds to its organization's row once, with `count = count + n` under that row's lock, in the batch's own
 * transaction: concurrent batches serialize on the row for the rest of their transaction instead of losing counts.
 * A batch that claims nothing runs no insert into `things`, so steady-state ingest pays nothing. SQLite has only row
 * triggers; its single writer makes `+ 1` per thing both exact and cheap.
 *
 * A deletion only updates (never inserts): when an organization is deleted its row goes with it (cascade), whichever
 * of the two cascades runs first.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('organization_thing_counts')
    .addColumn('organization_id', 'varchar(40)', (c) => c.primaryKey().references('organizations.id').onDelete('cascade'))
    .addColumn('thing_count', 'bigint', (c) => c.notNull())
    .execute();
  if (isSqlite(db)) {
    await sql`create trigger things_counted_insert after insert on things begin
      insert into organization_thing_counts (organization_id, thing_count) values (new.organization_id, 1)
        on conflict (organization_id) do update set thing_count = thing_count + 1;
    end`.execute(db);
    await sql`create trigger things_counted_delete after delete on things begin
      update organization_thing_counts set thing_count = thing_count - 1 where organization_id = old.organization_id;
    end`.execute(db);
  } else {
    await sql`create function things_counted_insert() returns trigger language plpgsql as $$
    begin
      insert into organization_thing_counts (organization_id, thing_count)
        select organization_id, count(*) from inserted_things group by organization_id order by organization_id
        on conflict (organization_id) do update set thing_count = organization_thing_counts.thing_count + excluded.thing_count;
      return null;
    end
    $$`.execute(db);
    await sql`create function things_counted_delete() returns trigger language plpgsql as $$
    begin
      update organization_thing_counts c set thing_count = c.thing_count - d.n
        from (select organization_id, count(*) as n from deleted_things group by organization_id) d
        where c.organization_id = d.organization_id;
      return null;
    end
    $$`.execute(db);
    await sql`create trigger things_counted_insert after insert on things referencing new table as inserted_things
      for each statement execute function things_counted_insert()`.execute(db);
    await sql`create trigger things_counted_delete after delete on things referencing old table as deleted_things
      for each statement execute function things_counted_delete()`.execute(db);
  }
  // The backfill, after the triggers: creating a trigger locks `things` against writes until the migration commits,
  // so no thing is created between the count and the triggers taking over, nor counted twice. (`where true`: SQLite
  // would read `on conflict` after a bare `from` as a join's `on`.)
  await sql`insert into organization_thing_counts (organization_id, thing_count)
    select o.id, (select count(*) from things t where t.organization_id = o.id) from organizations o where true
    on conflict (organization_id) do nothing`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger things_counted_insert ${isSqlite(db) ? sql`` : sql`on things`}`.execute(db);
  await sql`drop trigger things_counted_delete ${isSqlite(db) ? sql`` : sql`on things`}`.execute(db);
  if (!isSqlite(db)) {
    await sql`drop function things_counted_insert()`.execute(db);
    await sql`drop function things_counted_delete()`.execute(db);
  }
  await db.schema.dropTable('organization_thing_counts').execute();
}
