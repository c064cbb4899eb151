import type { DomainEventBus, DomainEventName, DomainEvents } from '../../domain/events.js';

/** Where a subscription's events go: how many may wait for the reader, and what happens when more would. */
export interface EventQueueBound {
  readonly queueLimit: number;
  overflowed(): void;
}

/**
 * An async iterator over a domain event for one GraphQL subscription: `select` turns each event into the items
 * this subscriber should see (often none: another organization's). Ends and unsubscribes when the client stops.
 * A reader that falls `queueLimit` items behind is not buffered for without end, nor silently skipped: the
 * iterator ends and `overflowed` tells the connection, which closes (the client reconnects and catches up).
 */
export function iterateEvents<K extends DomainEventName, T>(
  bus: DomainEventBus,
  name: K,
  bound: EventQueueBound,
  select: (event: DomainEvents[K]) => T[],
): AsyncIterableIterator<T> {
  const buffer: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let done = false;
  const unsubscribe = bus.onAnyInstance(name, (event) => {
    if (done) return;
    for (const item of select(event)) {
      if (waiting) {
        const resolve = waiting;
        waiting = undefined;
        resolve({ value: item, done: false });
      } else if (buffer.length >= bound.queueLimit) {
        void finish();
        bound.overflowed();
        return;
      } else {
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
