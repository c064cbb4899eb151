import type { DomainEventBus, DomainEventName, DomainEvents } from '../../domain/events.js';

// A subscriber that reads slower than events arrive keeps at most this many; older ones are dropped, so one slow
// client cannot grow the server's memory without bound.
const maxBuffered = 1000;

/**
 * An async iterator over a domain event for one GraphQL subscription: `select` turns each event into the items
 * this subscriber should see (often none: another organization's). Ends and unsubscribes when the client stops.
 */
export function iterateEvents<K extends DomainEventName, T>(bus: DomainEventBus, name: K, select: (event: DomainEvents[K]) => T[]): AsyncIterableIterator<T> {
  const buffer: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let done = false;
  const unsubscribe = bus.on(name, (event) => {
    if (done) return;
    for (const item of select(event)) {
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: item, done: false });
      } else {
        if (buffer.length >= maxBuffered) buffer.shift();
        buffer.push(item);
      }
    }
  });
  const finish = (): Promise<IteratorResult<T>> => {
    done = true;
    unsubscribe();
    buffer.length = 0;
    waiting?.({ value: undefined, done: true });
    waiting = undefined;
    return Promise.resolve({ value: undefined, done: true });
  };
  return {
    next: () => {
      if (buffer.length > 0) return Promise.resolve({ value: buffer.shift()!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    throw: (error?: unknown) => {
      void finish();
      return Promise.reject(error);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
