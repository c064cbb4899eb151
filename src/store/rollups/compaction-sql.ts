import { figureColumns, type RollupTables } from './rollup-tables.js';

/**
 * The statements of a compaction step, with `?` placeholders. The page reads are the same text on both stores
 * (PostgreSQL's adds `for update`: a late message's upsert of a row being compacted waits, then finds it gone and
 * inserts anew). The day statements take one row's values on SQLite (prepared, run per day) and one array per
 * column on PostgreSQL (`unnest`: a page's days in one round trip each).
 */
export function compactionSql(tables: RollupTables, dialect: 'sqlite' | 'postgres') {
  const { hours, days, dayHours, key, carried, keyTypes, carriedTypes } = tables;
  const postgres = dialect === 'postgres';
  const columns = [...key, ...carried, 'hour_start', ...figureColumns].join(', ');
  const order = [...key, 'hour_start'].join(', ');
  const lock = postgres ? ' for update' : '';
  const dayKey = [...key, 'day_start'];
  /** SQLite: `(a, b) = (?, ?)`, one key; PostgreSQL: `(a, b) in (select * from unnest(?::t[], ...))`, many. */
  const keysMatch = (names: readonly string[], types: readonly string[]) =>
    postgres
      ? `(${names.join(', ')}) in (select * from unnest(${types.map((type) => `?::${type}[]`).join(', ')}))`
      : names.map((name) => `${name} = ?`).join(' and ');
  const upsert = (table: string, names: readonly string[], types: readonly string[]) =>
    `insert into ${table} (${names.join(', ')}) ${
      postgres ? `select * from unnest(${types.map((type) => `?::${type}[]`).join(', ')})` : `values (${names.map(() => '?').join(', ')})`
    }
      on conflict (${dayKey.join(', ')}) do update set ${names
        .filter((name) => !dayKey.includes(name))
        .map((name) => `${name} = excluded.${name}`)
        .join(', ')}`;
  const dayKeyTypes = [...keyTypes, 'bigint'];
  return {
    /** The first `limit` hourly rows in key order. */
    firstPage: `select ${columns} from ${hours} order by ${order} limit ?${lock}`,
    /** The next `limit` after a row's key and hour. */
    nextPage: `select ${columns} from ${hours} where (${order}) > (${[...key, 'hour_start'].map(() => '?').join(', ')}) order by ${order} limit ?${lock}`,
    /** Compacted days' packed hours, with their keys. */
    selectDays: `select ${dayKey.join(', ')}, hourly from ${dayHours} where ${keysMatch(dayKey, dayKeyTypes)}`,
    /** Compacted days' figures, in the order of dayRows' `day`. */
    upsertDays: upsert(
      days,
      [...dayKey, ...carried, 'hours', 'hours_etag', ...figureColumns],
      [...dayKeyTypes, ...carriedTypes, 'int', 'text', 'bigint', ...figureColumns.slice(1).map(() => 'float8')],
    ),
    /** Compacted days' packed hours, in the order of dayRows' `hours`. */
    upsertDayHours: upsert(dayHours, [...dayKey, ...carried, 'hourly'], [...dayKeyTypes, ...carriedTypes, 'bytea']),
    /** Hourly rows by key and hour: exactly those read (and on PostgreSQL locked), not a range a newcomer could fall in. */
    deleteHours: `delete from ${hours} where ${keysMatch([...key, 'hour_start'], dayKeyTypes)}`,
  };
}

/** One array per column of rows of equal length (PostgreSQL's `unnest` parameters). */
export function columnsOf(rows: readonly (readonly unknown[])[]): unknown[][] {
  return (rows[0] ?? []).map((_, i) => rows.map((row) => row[i]));
}
