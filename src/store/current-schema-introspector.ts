import { PostgresDialect, sql, type DatabaseIntrospector, type Kysely, type SchemaMetadata, type TableMetadata } from 'kysely';

/**
 * Kysely's PostgreSQL introspector lists the columns of every table in every schema of the database, calling
 * functions (`pg_get_serial_sequence`) that read the live catalog, not the query's snapshot: a schema another
 * client drops while the listing runs fails it with "schema ... does not exist". The migrator lists tables on every
 * start to find its own, so a shared database with busy neighbours (tests, other applications) failed start-ups.
 * thingdesk's tables live in the connection's current schema, so that is all this introspector reads.
 */
export class CurrentSchemaIntrospector implements DatabaseIntrospector {
  constructor(private readonly db: Kysely<unknown>) {}

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`select nspname as name from pg_catalog.pg_namespace`.execute(this.db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    // pg_catalog only, filtered on the namespace first: no catalog function sees another schema's rows.
    const { rows } = await sql<{
      schema: string;
      table: string;
      kind: string;
      column: string;
      type: string;
      notNull: boolean;
      hasDefault: boolean;
    }>`
      select ns.nspname as schema, c.relname as table, c.relkind as kind, a.attname as column, t.typname as type,
             a.attnotnull as "notNull", a.atthasdef as "hasDefault"
      from pg_catalog.pg_namespace ns
      join pg_catalog.pg_class c on c.relnamespace = ns.oid and c.relkind in ('r', 'v', 'p')
      join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
      join pg_catalog.pg_type t on t.oid = a.atttypid
      where ns.nspname = current_schema()
      order by c.relname, a.attnum`.execute(this.db);
    const tables = new Map<string, TableMetadata & { columns: TableMetadata['columns'][number][] }>();
    for (const row of rows) {
      let table = tables.get(row.table);
      if (!table) {
        table = { name: row.table, schema: row.schema, isView: row.kind === 'v', columns: [] };
        tables.set(row.table, table);
      }
      table.columns.push({
        name: row.column,
        dataType: row.type,
        isNullable: !row.notNull,
        hasDefaultValue: row.hasDefault,
        isAutoIncrementing: false,
      });
    }
    return [...tables.values()];
  }

  async getMetadata(): Promise<{ tables: TableMetadata[] }> {
    return { tables: await this.getTables() };
  }
}

/** The PostgreSQL dialect with the introspector above. */
export class CurrentSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new CurrentSchemaIntrospector(db);
  }
}
