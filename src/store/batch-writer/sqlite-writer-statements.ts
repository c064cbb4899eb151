import type SqliteDatabase from 'better-sqlite3';
import type { WriterStatement } from './sqlite-writer-protocol.js';

/**
 * Runs compiled statements in one transaction on the writer's connection (sqlite-writer-thread.ts `statements`),
 * each prepared once per SQL text. A statement that returns rows (a `returning` clause, a select) answers them; one
 * run for each of several parameter lists answers none.
 */
export function prepareSqliteStatements(connection: SqliteDatabase.Database): (statements: readonly WriterStatement[]) => unknown[][] {
  const prepared = new Map<string, SqliteDatabase.Statement>();
  const prepare = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) {
      // The texts are few (the dispatcher's statements; `in` lists vary in length): a bound keeps an odd caller cheap.
      if (prepared.size > 200) prepared.clear();
      prepared.set(sql, (statement = connection.prepare(sql)));
    }
    return statement;
  };
  return connection.transaction((statements: readonly WriterStatement[]) =>
    statements.map((written) => {
      const statement = prepare(written.sql);
      if ('each' in written) {
        for (const parameters of written.each) statement.run(...parameters);
        return [];
      }
      if (statement.reader) return statement.all(...written.parameters);
      statement.run(...written.parameters);
      return [];
    }),
  );
}
