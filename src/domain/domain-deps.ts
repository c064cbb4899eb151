import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DomainEventBus } from './events.js';

/**
 * What every domain function receives: the store, the clock and the event bus. Transports build it once (in the
 * composition root) and pass it; nothing in the domain reaches for a global.
 */
export interface DomainDeps {
  store: Store;
  clock: Clock;
  events: DomainEventBus;
}
