import { sql, type RawBuilder } from 'kysely';
import type { Dialect } from './database.js';

/**
 * The few SQL pieces spelled differently by SQLite and PostgreSQL, for statements whose text is otherwise the same
 * on both: the larger and smaller of two values (SQLite's two-argument `max`/`min` are PostgreSQL's
 * `greatest`/`least`), and a millisecond time bound as a parameter that stands alone.
 */
export function portableSql(dialect: Dialect) {
  return {
    greatest: (a: RawBuilder<unknown>, b: RawBuilder<unknown>) =>
      dialect === 'postgres' ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`,
    least: (a: RawBuilder<unknown>, b: RawBuilder<unknown>) => (dialect === 'postgres' ? sql`least(${a}, ${b})` : sql`min(${a}, ${b})`),
    // A bind parameter that stands alone gets an explicit type: PostgreSQL would otherwise read it as text.
    ms: (value: number) => sql`cast(${value} as bigint)`,
  };
}

/**
 * A statement written with `?` placeholders (as SQLite's prepared statements take them) for the query builder, which
 * numbers them for PostgreSQL: one text serves both stores.
 */
export function withPlaceholders<Row>(text: string, parameters: readonly unknown[]): RawBuilder<Row> {
  const parts = text.split('?');
  return sql<Row>`${sql.join(
    parts.map((part, i) => (i === 0 ? sql.raw(part) : sql`${parameters[i - 1]}${sql.raw(part)}`)),
    sql.raw(''),
  )}`;
}
