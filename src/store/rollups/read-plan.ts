import type { Kysely } from 'kysely';
import type { KnownRuns } from '../../domain/series/series-types.js';
import { withPlaceholders } from '../portable-sql.js';
import type { Schema } from '../schema.js';
import type { SqliteDirectReads } from '../sqlite-direct-reads.js';

/** A statement of a read plan, with `?` placeholders. */
export interface Statement {
  text: string;
  parameters: readonly unknown[];
}

/**
 * A question of a read plan to its caller: how many points the caller holds for each of these etags (see KnownRuns),
 * null where it holds none. A plan asks rather than calls: on a reader thread (sqlite-reader-pool.ts) the caller's
 * `known` lives on the main thread.
 */
export interface KnownQuestion {
  known: readonly string[];
}

/** A read of several statements (see inSnapshot): yields each statement and is given its rows, or a question and its answer. */
export type Plan<T> = Generator<Statement | KnownQuestion, T, unknown>;

/**
 * One statement of a plan; its rows typed as the caller selected them. Name every column apart (`count(*) as days`):
 * through the query builder rows come as objects, and two columns of one name would be one value.
 */
export function* select<Row extends unknown[]>(text: string, parameters: readonly unknown[]): Generator<Statement, Row[], unknown> {
  return (yield { text, parameters }) as Row[];
}

/** The points the caller holds for each etag (null: none), in their order; one question for them all. */
export function* knownCounts(etags: readonly string[]): Generator<KnownQuestion, (number | null)[], unknown> {
  if (etags.length === 0) return [];
  return (yield { known: etags }) as (number | null)[];
}

/** The answer to a plan's question (see KnownQuestion) from the caller's `known`. */
export function answerKnown(question: KnownQuestion, known: KnownRuns): (number | null)[] {
  return question.known.map((etag) => known(etag) ?? null);
}

/**
 * Drives a plan to its end with `run` answering its statements (synchronously) and `known` its questions: a plan
 * run whole in one go, as SQLite's snapshot runs it.
 */
export function runPlanSync<T>(steps: Plan<T>, run: (statement: Statement) => unknown[][], known: KnownRuns): T {
  let step = steps.next();
  while (!step.done) step = steps.next('known' in step.value ? answerKnown(step.value, known) : run(step.value));
  return step.value;
}

/** Runs read plans on a store (see inSnapshot). */
export function planRunner(db: Kysely<Schema>, dialect: 'sqlite' | 'postgres', directReads: SqliteDirectReads | undefined) {
  const sqlite = dialect === 'sqlite';
  /**
   * Runs a read plan (a generator yielding statements with `?` placeholders and receiving each one's rows, every row
   * an array of its columns in the order selected) so that all its statements see one state of the store: the
   * compaction moves rows between the tiers (raw, hourly, days) and a read that met the store half before and half
   * after a step would count them twice or not at all. SQLite (without reader threads, see rollupsStore):
   * prepared statements in one read transaction, run whole and synchronously on the main connection. Otherwise
   * (PostgreSQL, or SQLite while the connection is in another transaction): one transaction of the query builder,
   * REPEATABLE READ on PostgreSQL. `known` answers the plan's questions (see KnownQuestion).
   */
  async function inSnapshot<T>(plan: () => Plan<T>, known: KnownRuns): Promise<T> {
    const direct = directReads?.snapshot((all) => runPlanSync(plan(), (statement) => all(statement.text, statement.parameters), known));
    if (direct) return direct.value;
    const transaction = sqlite ? db.transaction() : db.transaction().setIsolationLevel('repeatable read');
    return transaction.execute((trx) => runOn(trx, plan(), known));
  }

  /** Runs a plan's statements one after another on `executor` (a transaction, or the store for a plan of one). */
  async function runOn<T>(executor: Kysely<Schema>, steps: Plan<T>, known: KnownRuns): Promise<T> {
    let step = steps.next();
    while (!step.done) {
      if ('known' in step.value) {
        step = steps.next(answerKnown(step.value, known));
        continue;
      }
      const { rows } = await withPlaceholders<Record<string, unknown>>(step.value.text, step.value.parameters).execute(executor);
      step = steps.next(rows.map((row) => Object.values(row)));
    }
    return step.value;
  }

  return { inSnapshot, runOn };
}
