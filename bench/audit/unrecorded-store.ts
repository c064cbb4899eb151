import type { Store } from '../../src/store/store.js';

/** The store as it was before the audit log: no transaction around the change, no entry. */
export function unrecorded(store: Store): Store {
  return { ...store, transaction: (work) => work(), audit: { ...store.audit, append: async () => undefined } };
}
