import type { Kysely } from 'kysely';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import type { SqliteDirectReads } from '../sqlite-direct-reads.js';

/** A statement of a read plan, with `?` placeholders. */
export interface Statement {
  text: string;
  parameters: readonly unknown[];
}
/** A read of several statements (see inSnapshot): yields each statement and is given its rows. */
export type Plan<T> = Generator<Statement, T, unknown[][]>;

/**
 * One statement of a plan; its rows typed as the caller selected them. Name every column apart (`count(*) as days`):
 * through the query builder rows come as objects, and two columns of one name would be one value.
 */
export function* select<Row extends unknown[]>(text: string, parameters: readonly unknown[]): Generator<Statement, Row[], unknown[][]> {
  return (yield { text, parameters }) as Row[];
}

/** Runs read plans on a store (see inSnapshot). */
export function planRunner(db: Kysely<Schema>, dialect: 'sqlite' | 'postgres', directReads: SqliteDirectReads | undefined) {
  const sqlite = dialect === 'sqlite';
  /**
   * Runs a read plan (a generator yielding statements with `?` placeholders and receiving each one's rows, every row
   * an array of its columns in the order selected) so that all its statements see one state of the store: the
   * compaction moves rows between the tiers (raw, hourly, days) and a read that met the store half before and half
   * after a step would count them twice or not at all. SQLite: prepared statements in one read transaction, run
   * whole and synchronously on the main connection. Otherwise (PostgreSQL, or SQLite while the connection is in
   * another transaction): one transaction of the query builder, REPEATABLE READ on PostgreSQL.
   */
  async function inSnapshot<T>(plan: () => Plan<T>): Promise<T> {
    const direct = directReads?.snapshot((all) => {
      const steps = plan();
      let step = steps.next();
      while (!step.done) step = steps.next(all(step.value.text, step.value.parameters));
      return step.value;
    });
    if (direct) return direct.value;
    const transaction = sqlite ? db.transaction() : db.transaction().setIsolationLevel('repeatable read');
    return transaction.execute((trx) => runOn(trx, plan()));
  }

  /** Runs a plan's statements one after another on `executor` (a transaction, or the store for a plan of one). */
  async function runOn<T>(executor: Kysely<Schema>, steps: Plan<T>): Promise<T> {
    let step = steps.next();
    while (!step.done) {
      const { rows } = await withPlaceholders<Record<string, unknown>>(step.value.text, step.value.parameters).execute(executor);
      step = steps.next(rows.map((row) => Object.values(row)));
    }
    return step.value;
  }

  return { inSnapshot, runOn };
}
