import type { Store } from './store.js';

/** Receives the time of one store call: `operation` is `<module>.<method>` (`things.get`), a fixed set. */
export type StoreCallObserver = (operation: string) => (seconds: number) => void;

/**
 * The store with every call of its entity modules timed: each method is wrapped once, here, and reports its
 * duration (resolved or failed) under its own name, never the SQL. The names come from the Store's shape, so the
 * label set is bounded by the code and a new method is measured without a change here. `observerFor` is asked
 * once per operation, when it is first called, so an unused method adds no series.
 *
 * The ingest writer does not go through the Store (it has its own connection or thread): its transactions are
 * thingdesk_ingest_commit_seconds.
 */
export function timedStore(store: Store, observerFor: StoreCallObserver): Store {
  const timed: Record<string, unknown> = { ...store };
  for (const [module, methods] of Object.entries(store)) {
    if (typeof methods !== 'object' || methods === null) continue;
    const wrapped: Record<string, unknown> = {};
    for (const [name, method] of Object.entries(methods as Record<string, unknown>)) {
      wrapped[name] =
        typeof method === 'function'
          ? timeCalls(methods, method as (...args: unknown[]) => unknown, `${module}.${name}`, observerFor)
          : method;
    }
    timed[module] = wrapped;
  }
  return timed as Store;
}

function timeCalls(
  self: object,
  method: (...args: unknown[]) => unknown,
  operation: string,
  observerFor: StoreCallObserver,
): (...args: unknown[]) => unknown {
  let observe: ((seconds: number) => void) | undefined;
  return (...args) => {
    const start = performance.now();
    const done = () => (observe ??= observerFor(operation))((performance.now() - start) / 1000);
    let result: unknown;
    try {
      result = method.apply(self, args);
    } catch (error) {
      done();
      throw error;
    }
    // Timed on a side chain: the caller awaits the method's own promise, with no extra step added to it.
    if (result instanceof Promise) result.then(done, done);
    else done();
    return result;
  };
}
