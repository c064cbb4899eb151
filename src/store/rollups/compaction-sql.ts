import { figureColumns, type RollupTables } from './rollup-tables.js';

/**
 * The statements of a compaction step, with `?` placeholders, the same text on both stores (PostgreSQL's page read
 * adds `for update`: a late message's upsert of a row being compacted waits, then finds it gone and inserts anew).
 */
export function compactionSql(tables: RollupTables, dialect: 'sqlite' | 'postgres') {
  const { hours, days, dayHours, key, carried } = tables;
  const keyMatch = key.map((column) => `${column} = ?`).join(' and ');
  const columns = [...key, ...carried, 'hour_start', ...figureColumns].join(', ');
  const order = [...key, 'hour_start'].join(', ');
  const lock = dialect === 'postgres' ? ' for update' : '';
  const dayKey = [...key, 'day_start'];
  const upsert = (table: string, columns: readonly string[]) =>
    `insert into ${table} (${columns.join(', ')}) values (${columns.map(() => '?').join(', ')})
      on conflict (${dayKey.join(', ')}) do update set ${columns
        .filter((column) => !dayKey.includes(column))
        .map((c) => `${c} = excluded.${c}`)
        .join(', ')}`;
  return {
    /** The first `limit` hourly rows in key order. */
    firstPage: `select ${columns} from ${hours} order by ${order} limit ?${lock}`,
    /** The next `limit` after a row's key and hour. */
    nextPage: `select ${columns} from ${hours} where (${order}) > (${[...key, 'hour_start'].map(() => '?').join(', ')}) order by ${order} limit ?${lock}`,
    /** A compacted day's hours. */
    selectDay: `select hourly from ${dayHours} where ${keyMatch} and day_start = ?`,
    /** A compacted day's figures: key, day_start, carried columns, hours, figures. */
    upsertDay: upsert(days, [...dayKey, ...carried, 'hours', ...figureColumns]),
    /** A compacted day's packed hours: key, day_start, carried columns, hourly. */
    upsertDayHours: upsert(dayHours, [...dayKey, ...carried, 'hourly']),
    deleteHour: `delete from ${hours} where ${keyMatch} and hour_start = ?`,
  };
}
