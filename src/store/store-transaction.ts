import { AsyncLocalStorage } from 'node:async_hooks';
import type { Kysely, Transaction } from 'kysely';
import type { Schema } from './schema.js';

interface OpenTransaction {
  trx: Transaction<Schema>;
  open: boolean;
}

/**
 * One transaction around several store calls (Store.transaction), without threading it through every entity
 * module: the modules are built over `ambientDb`, which sends each query to the transaction the calling async
 * context runs in (AsyncLocalStorage), else to the database. A module's own `transaction()` inside one joins it
 * (flattened: an error anywhere rolls the whole back). Work a transaction's context starts that outlives it (an
 * event listener) falls back to the database once the transaction has ended.
 */
export function ambientTransactions(db: Kysely<Schema>) {
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
  async function transaction<T>(work: () => Promise<T>): Promise<T> {
    const active = current.getStore();
    if (active?.open) return work();
    return db.transaction().execute(async (trx) => {
      const opened: OpenTransaction = { trx, open: true };
      try {
        return await current.run(opened, work);
      } finally {
        opened.open = false;
      }
    });
  }
  return { ambientDb, transaction };
}
