import { AppError } from '../../domain/errors.js';
import type { DomainEventBus, RelayLink, SessionEndReason } from '../../domain/events.js';
import type { UserPrincipal } from '../../domain/auth/principal.js';
import type { UserSessions } from '../../domain/auth/user-sessions.js';

/** Why the platform ends a live connection; WebSocket closes with `code`, SSE ends its stream with `message`. */
export interface StreamEnd {
  /** 4401 and 4403 are graphql-ws's Unauthorized and Forbidden: its clients do not retry them on their own. */
  code: 4401 | 4403 | 1013;
  message: string;
  /** A reader that does not keep up: nothing more is written to it (it would not read it), the socket is dropped. */
  slow: boolean;
}

export interface LiveStreamLimits {
  perConnection: number;
  perUser: number;
  /** Events a subscription may have waiting (event-iterator.ts); passed to resolvers through the context. */
  queue: number;
  recheckMs: number;
}

/** One WebSocket or SSE connection of a signed-in user, as the resolvers and the registry see it. */
export interface LiveConnection {
  readonly principal: UserPrincipal;
  /** How many events a subscription on this connection may have waiting before `overflowed` is called. */
  readonly queueLimit: number;
  /** A subscription's queue overflowed: its reader does not keep up, so the connection is ended as slow. */
  overflowed(): void;
}

interface Entry extends LiveConnection {
  subscriptions: number;
  ended: boolean;
  end(why: StreamEnd): void;
}

export const slowConsumer: StreamEnd = {
  code: 1013,
  message: 'Closed: the client does not read its events fast enough; reconnect and catch up with a query.',
  slow: true,
};

/**
 * 1013 (try again later): graphql-ws clients reconnect on their own, and should read what they missed. (A close
 * reason may not exceed 123 bytes: every StreamEnd message stays under it, checked by a test.)
 */
export const relayLost: StreamEnd = {
  code: 1013,
  message: 'Closed: link to the other instances lost, live events may have been missed; reconnect and catch up.',
  slow: false,
};

/** How a stream ends with its session; `reason` as stored with the session, when known. */
export function sessionEnd(reason?: string): StreamEnd {
  if (reason === ('role changed' satisfies SessionEndReason))
    return { code: 4403, message: 'Forbidden: your role changed; sign in again.', slow: false };
  const why = reason === undefined ? '' : ` (${reason})`;
  return { code: 4401, message: `Unauthorized: the session has ended${why}; sign in again.`, slow: false };
}

/**
 * The live GraphQL connections of this instance (SPEC section 4, subscriptions). A session that ends here
 * (logout, refresh token reuse, a user deleted or given another role) ends its connections at once, through the
 * `sessionsEnded` event, relayed from other instances on PostgreSQL (cluster-events.ts); a periodic check of the
 * store covers what a relay outage missed. It also
 * holds the subscription caps, per connection and per user, so that one account cannot multiply the work of
 * every uplink without bound.
 */
export class LiveStreams {
  private readonly entries = new Set<Entry>();
  private readonly perUser = new Map<string, number>();
  private readonly stopListening: (() => void)[];
  private readonly timer: NodeJS.Timeout;
  /** Relay links that are down now: while any is, a stream here would silently miss other instances' events. */
  private readonly linksDown = new Set<RelayLink>();

  constructor(
    private readonly deps: { events: DomainEventBus; sessions: UserSessions; limits: LiveStreamLimits; onError: (error: unknown) => void },
  ) {
    this.stopListening = [
      deps.events.onAnyInstance('sessionsEnded', ({ sessionIds, reason }) => {
        const ended = new Set(sessionIds);
        for (const entry of this.entries) if (ended.has(entry.principal.sessionId)) this.end(entry, sessionEnd(reason));
      }),
      deps.events.on('relayLinkChanged', ({ link, up }) => {
        if (up) return void this.linksDown.delete(link);
        this.linksDown.add(link);
        for (const entry of this.entries) this.end(entry, relayLost);
      }),
    ];
    this.timer = setInterval(() => void this.recheck().catch(deps.onError), deps.limits.recheckMs);
    this.timer.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Live subscriptions held on all of this instance's connections. */
  get subscriptionCount(): number {
    let count = 0;
    for (const entry of this.entries) count += entry.subscriptions;
    return count;
  }

  /** Registers a connection; `end` is how its transport closes it. */
  open(principal: UserPrincipal, end: (why: StreamEnd) => void): LiveConnection {
    const entry: Entry = {
      principal,
      queueLimit: this.deps.limits.queue,
      subscriptions: 0,
      ended: false,
      end,
      overflowed: () => this.end(entry, slowConsumer),
    };
    this.entries.add(entry);
    return entry;
  }

  /**
   * Takes a subscription slot, checking the session as it is now (a subscribe on a connection opened before a
   * logout is refused and ends the connection). RATE_LIMITED past a cap; SERVICE_UNAVAILABLE while a relay link
   * is down (the stream would miss other instances' events without saying so).
   */
  async reserve(connection: LiveConnection): Promise<void> {
    const entry = connection as Entry;
    if (this.linksDown.size > 0) {
      throw new AppError(
        'SERVICE_UNAVAILABLE',
        `Live events of the deployment's other instances cannot reach this instance now (${[...this.linksDown].join(', ')} link down); retry shortly.`,
        [],
        { retryAfterS: 2 },
      );
    }
    try {
      await this.deps.sessions.assertSessionActive(entry.principal);
    } catch (error) {
      this.end(entry, sessionEnd());
      throw error;
    }
    const { perConnection, perUser } = this.deps.limits;
    if (entry.subscriptions >= perConnection) {
      throw new AppError(
        'RATE_LIMITED',
        `At most ${perConnection} live subscriptions per connection (GRAPHQL_SUBSCRIPTIONS_PER_CONNECTION).`,
        [],
        { retryAfterS: 1 },
      );
    }
    const userId = entry.principal.userId;
    const held = this.perUser.get(userId) ?? 0;
    if (held >= perUser) {
      throw new AppError('RATE_LIMITED', `At most ${perUser} live subscriptions per user (GRAPHQL_SUBSCRIPTIONS_PER_USER).`, [], {
        retryAfterS: 1,
      });
    }
    entry.subscriptions += 1;
    this.perUser.set(userId, held + 1);
  }

  /** Gives a subscription slot back (the subscription completed or was stopped). */
  release(connection: LiveConnection, count = 1): void {
    const entry = connection as Entry;
    const released = Math.min(count, entry.subscriptions);
    if (released === 0) return;
    entry.subscriptions -= released;
    const left = (this.perUser.get(entry.principal.userId) ?? 0) - released;
    if (left > 0) this.perUser.set(entry.principal.userId, left);
    else this.perUser.delete(entry.principal.userId);
  }

  /** The connection is gone: its slots are free. */
  close(connection: LiveConnection): void {
    const entry = connection as Entry;
    entry.ended = true;
    this.release(entry, entry.subscriptions);
    this.entries.delete(entry);
  }

  stop(): void {
    clearInterval(this.timer);
    for (const stop of this.stopListening) stop();
  }

  private end(entry: Entry, why: StreamEnd): void {
    if (entry.ended) return;
    entry.ended = true;
    try {
      entry.end(why);
    } finally {
      this.close(entry);
    }
  }

  // Sessions ended on another instance are seen here: one store read per distinct session, however many streams.
  private async recheck(): Promise<void> {
    const bySession = new Map<string, Entry[]>();
    for (const entry of this.entries) {
      const list = bySession.get(entry.principal.sessionId);
      if (list) list.push(entry);
      else bySession.set(entry.principal.sessionId, [entry]);
    }
    for (const [sessionId, entries] of bySession) {
      const reason = await this.deps.sessions.endReasonOf(sessionId);
      if (reason !== undefined) for (const entry of entries) this.end(entry, sessionEnd(reason));
    }
  }
}
