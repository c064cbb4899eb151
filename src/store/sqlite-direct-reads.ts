import type SqliteDatabase from 'better-sqlite3';

/**
 * Hot reads on the main SQLite connection as prepared statements, past the query builder: Kysely compiles every
 * query anew, queues it behind its connection mutex and builds an object per row, which on the busiest reads
 * (a thing by TUID, a page of messages) cost as much as SQLite's own work.
 *
 * Such a read runs only while no transaction is open on the connection (`statement` answers undefined otherwise,
 * and the caller takes the query builder, which waits for the transaction). better-sqlite3 is synchronous, so a
 * statement started outside a transaction runs whole in autocommit and sees only committed rows; inside another
 * request's open transaction it could see writes that are later rolled back.
 */
export class SqliteDirectReads {
  private readonly statements = new Map<string, SqliteDatabase.Statement>();

  constructor(private readonly connection: SqliteDatabase.Database) {}

  /**
   * The prepared statement for `text` (prepared on first use, then kept: texts are the store modules' own, values
   * travel as parameters), or undefined while a transaction is open. `firstColumn` returns each row's first column,
   * `arrays` each row as an array of its columns (no object per row: half the cost on long series reads).
   */
  statement<Row>(text: string, shape: 'rows' | 'firstColumn' | 'arrays'): SqliteDatabase.Statement<unknown[], Row> | undefined {
    if (this.connection.inTransaction) return undefined;
    return this.prepared<Row>(text, shape);
  }

  /**
   * Runs `read` in one read transaction, so that all its statements see the same state of the store (a writer's
   * commits in between are not seen); undefined while another transaction is open. `read` must be synchronous:
   * nothing else may use the connection while the transaction is open. `all` runs a statement, rows as arrays.
   */
  snapshot<T>(read: (all: (text: string, parameters: readonly unknown[]) => unknown[][]) => T): { value: T } | undefined {
    if (this.connection.inTransaction) return undefined;
    const all = (text: string, parameters: readonly unknown[]) => this.prepared<unknown[]>(text, 'arrays').all(...parameters);
    return { value: this.connection.transaction(() => read(all)).deferred() };
  }

  private prepared<Row>(text: string, shape: 'rows' | 'firstColumn' | 'arrays'): SqliteDatabase.Statement<unknown[], Row> {
    const key = `${shape}\u0000${text}`;
    let statement = this.statements.get(key);
    if (!statement) {
      statement = this.connection.prepare(text);
      if (shape === 'firstColumn') statement.pluck();
      if (shape === 'arrays') statement.raw(true);
      this.statements.set(key, statement);
    }
    return statement as SqliteDatabase.Statement<unknown[], Row>;
  }
}
