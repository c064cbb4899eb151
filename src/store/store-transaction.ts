import { AsyncLocalStorage } from 'node:async_hooks';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Dialect } from './database.js';
import type { Schema } from './schema.js';

interface OpenTransaction {
  trx: Transaction<Schema>;
  open: boolean;
  /** PostgreSQL: statements sent in the COMMIT's round trip, in order (see `atCommit`). */
  atCommit: string[];
}

/**
 * One transaction around several store calls (Store.transaction), without threading it through every entity
 * module: the modules are built over `ambientDb`, which sends each query to the transaction the calling async
 * context runs in (AsyncLocalStorage), else to the database. A module's own `transaction()` inside one joins it
 * (flattened: an error anywhere rolls the whole back). Work a transaction's context starts that outlives it (an
 * event listener) falls back to the database once the transaction has ended.
 *
 * On PostgreSQL the transaction is begun and committed here, on one pooled connection, so that `atCommit` can
 * send statements whose result nobody waits for together with the COMMIT: one round trip instead of two. The audit
 * entry that records a change is such a statement (SPEC 14: recording adds at most 10 % to a mutation, and a round
 * trip is most of a mutation's cost); it also holds the organization's audit head locked only while committing.
 */
export function ambientTransactions(db: Kysely<Schema>, dialect: Dialect) {
  const current = new AsyncLocalStorage<OpenTransaction>();
  const joined = (trx: Transaction<Schema>) => {
    const builder = {
      setIsolationLevel: () => builder,
      setAccessMode: () => builder,
      execute: <T>(work: (t: Transaction<Schema>) => Promise<T>) => work(trx),
    };
    return builder;
  };
  const ambientDb = new Proxy(db, {
    get(target, property) {
      const active = current.getStore();
      if (active?.open && property === 'transaction') return () => joined(active.trx);
      // Kysely keeps its state in private fields: its methods must run on the object itself, not on this proxy.
      const self: object = active?.open ? active.trx : target;
      const value: unknown = Reflect.get(self, property, self);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(self) : value;
    },
  });

  async function run<T>(opened: OpenTransaction, work: () => Promise<T>): Promise<T> {
    try {
      return await current.run(opened, work);
    } finally {
      opened.open = false;
    }
  }

  async function transaction<T>(work: () => Promise<T>): Promise<T> {
    const active = current.getStore();
    if (active?.open) return work();
    if (dialect === 'sqlite') return db.transaction().execute((trx) => run({ trx, open: true, atCommit: [] }, work));
    return db.connection().execute(async (connection) => {
      const send = (text: string) => connection.executeQuery(CompiledQuery.raw(text));
      const opened: OpenTransaction = { trx: asTransaction(connection, joined), open: true, atCommit: [] };
      await send('begin');
      let result: T;
      try {
        result = await run(opened, work);
        // Without parameters node-postgres sends the simple query protocol, which takes several statements at once.
        await send([...opened.atCommit, 'commit'].join(';\n'));
      } catch (error) {
        // After a failed statement the transaction is aborted (or, if COMMIT itself failed, over): end it either way
        // so the connection goes back to the pool clean.
        await send('rollback').catch(() => undefined);
        throw error;
      }
      return result;
    });
  }

  /**
   * Sends `statement` (complete SQL, its values as escaped literals) with the COMMIT of the transaction the caller
   * runs in, so it costs no round trip of its own; false (nothing deferred) outside one or on SQLite. An error in it
   * rolls the whole transaction back, as any statement's would.
   */
  function atCommit(statement: string): boolean {
    const active = current.getStore();
    if (dialect !== 'postgres' || !active?.open) return false;
    active.atCommit.push(statement);
    return true;
  }

  return { ambientDb, transaction, atCommit };
}

/**
 * A pooled connection in a transaction begun by hand, seen as Kysely's Transaction: `isTransaction` true, and its
 * own `transaction()` joins (a nested BEGIN would be ignored and its COMMIT would end the outer one early).
 */
function asTransaction(
  connection: Kysely<Schema>,
  joined: (trx: Transaction<Schema>) => { execute: <T>(work: (t: Transaction<Schema>) => Promise<T>) => Promise<T> },
): Transaction<Schema> {
  const trx: Transaction<Schema> = new Proxy(connection, {
    get(target, property) {
      if (property === 'isTransaction') return true;
      if (property === 'transaction') return () => joined(trx);
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as unknown as Transaction<Schema>;
  return trx;
}
