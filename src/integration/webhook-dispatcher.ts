import { Counter, Gauge, Histogram } from 'prom-client';
import type { Clock } from '../domain/clock.js';
import type { DomainEventBus } from '../domain/events.js';
import type { WebhookEndpointView } from '../domain/webhooks/endpoint-view.js';
import { rfc3339 } from '../domain/webhooks/outbox-rules.js';
import { retryDelayMs } from '../domain/webhooks/retry-rules.js';
import { webhookSignature } from '../domain/webhooks/webhook-signing.js';
import type {
  OutboxHandOff,
  OutboxRow,
  WebhookAttempt,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookHealth,
} from '../domain/webhooks/webhook-types.js';
import type { Logger } from '../observability/logger.js';
import type { Metrics } from '../observability/metrics.js';
import type { Store } from '../store/store.js';
import type { AttemptOutcome } from '../store/webhooks-store.js';
import type { ChannelMessage } from '../domain/channels/channel-types.js';
import type { ChannelSender } from './channel-sender.js';
import type { SendResult, WebhookSender } from './webhook-sender.js';

export interface DispatcherSettings {
  retryScheduleS: readonly number[];
  concurrency: number;
  timeoutMs: number;
  disableAfterS: number;
  /** How often due deliveries are looked for in the store (retries, and what was not handed over). */
  pollMs?: number;
  /**
   * This is the only dispatcher of its store (SQLite: one process): leases left by a previous process (a kill -9)
   * are ended at start, so what it held is sent at once rather than when the leases run out.
   */
  soleDispatcher?: boolean;
}

/** A delivery this dispatcher holds, and until when its lease keeps other instances off it. */
type Leased = WebhookDelivery & { leaseUntil: number };

/** Attempts waiting for their record beyond which a lane waits for its own (SQLite: the writer is behind). */
const recordBacklog = 2_000;

/** How many deliveries a healthy lane takes in memory (handed over at commit) beyond what it has in flight, per slot. */
const handOffPerSlot = 64;

/**
 * How far ahead a lane claims: at least 8 rounds of its slots, and at a fast lane half a second of its pace, so
 * that a claim (a store round trip) ends before the queue it refills is empty. A backlog draining at thousands of
 * attempts a second otherwise waits for a claim every few hundred; a slow or hung lane keeps the 8 rounds.
 */
const roundsAhead = 8;
const paceAheadS = 0.5;
const mostAhead = 5_000;

/**
 * Sends the outbox (SPEC section 11, Delivery and Health). Each enabled endpoint has its own lane: at most
 * WEBHOOK_CONCURRENCY attempts in flight, claimed from the store only when the lane has room, so a hung receiver
 * fills its own lane and delays nobody else. Claims take a lease longer than an attempt may last (the store's
 * `claimDue`, FOR UPDATE SKIP LOCKED on PostgreSQL): with several instances each attempt runs on one. After an
 * attempt the delivery is settled (2xx), scheduled again (the next entry of WEBHOOK_RETRY_SCHEDULE with ±10 %
 * jitter, or Retry-After on 429/503 capped by the longest entry), failed (after the last), or left waiting (410
 * disables the endpoint). A batching endpoint's partial deliveries never tried yet are joined when claimed.
 *
 * New deliveries do not wait for a claim: the ingest writer asks `accepts` before its transaction, writes the rows
 * of a healthy lane with room already leased to this instance, and hands them over after the commit (`take`,
 * OutboxHandOff). The store is polled (`pollMs`) only for what was not handed over (a failing or full lane) and for
 * retries. A lane slot is given back when its request ends; attempts are recorded in groups behind it (their
 * leases keep them from being claimed again meanwhile).
 */
export class WebhookDispatcher implements OutboxHandOff {
  private readonly inFlight = new Map<string, number>();
  private readonly claiming = new Set<string>();
  /** Endpoints to claim for once more as soon as the lane has room (a retry came due, or a claim was asked during one). */
  private readonly claimAgain = new Set<string>();
  private readonly health = new Map<string, { health: WebhookHealth; savedAt: number }>();
  private readonly unsealed = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly running = new Set<Promise<void>>();
  /** Endpoints whose last claim was full: more may be due, so a freed slot claims again before the next poll. */
  private readonly backlog = new Set<string>();
  /** Handed-over deliveries not due yet (a batching endpoint's partial batches, a first delay), by endpoint. */
  private readonly held = new Map<string, { deliveries: Leased[]; timer: NodeJS.Timeout | undefined }>();
  readonly leaseMs: number;
  private readonly outcomes: Counter<'outcome'>;
  private readonly latency: Histogram;
  private queueStats: { organizationId: string; pending: number; oldestCreatedAt: number }[] = [];
  /** The last read of the queue's figures for /metrics: read at a scrape, at most once a second. */
  private statsRead: { at: number; reading: Promise<void> } | undefined;
  private readonly toRecord: { attempt: WebhookAttempt; outcome: AttemptOutcome; resolve: () => void; reject: (error: unknown) => void }[] =
    [];
  private flushing: Promise<void> | undefined;
  /** Claimed deliveries waiting for a slot of their endpoint's lane (their lease runs meanwhile). */
  private readonly queued = new Map<string, Leased[]>();
  /** Attempts each lane ended in the current and the previous second (the clock's): its pace. */
  private readonly pace = new Map<string, { second: number; current: number; previous: number }>();

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      events: DomainEventBus;
      view: WebhookEndpointView;
      sender: WebhookSender;
      /** Notification channels' deliveries (SPEC section 13) go out through this one, with the same lanes and retries. */
      channelSender?: Pick<ChannelSender, 'send'>;
      unseal: (sealed: string) => string;
      logger: Logger;
      metrics?: Metrics;
    },
    private readonly settings: DispatcherSettings,
  ) {
    // Covers the rounds a delivery may wait in its lane's queue and its own attempt.
    this.leaseMs = settings.timeoutMs * 2 + 5_000;
    const registers = deps.metrics ? [deps.metrics.registry] : [];
    this.outcomes = new Counter({
      name: 'thingdesk_webhook_attempts_total',
      help: 'Webhook delivery attempts, by outcome: succeeded, retry (failed, another attempt scheduled), failed (the last attempt failed), disabled (410 or failing too long).',
      labelNames: ['outcome'] as const,
      registers,
    });
    this.latency = new Histogram({
      name: 'thingdesk_webhook_attempt_seconds',
      help: 'Time of one webhook attempt, from resolving the host to the end of the answer.',
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers,
    });
    const stats = () => this.queueStats;
    const readStats = () => this.readQueueStats();
    new Gauge({
      name: 'thingdesk_webhook_queue_depth',
      help: 'Webhook deliveries pending, by organization (read at a scrape, at most once a second).',
      labelNames: ['organization'] as const,
      registers,
      async collect() {
        await readStats();
        this.reset();
        for (const s of stats()) this.set({ organization: s.organizationId }, s.pending);
      },
    });
    const now = () => deps.clock.now();
    new Gauge({
      name: 'thingdesk_webhook_oldest_pending_seconds',
      help: 'Age of the oldest pending webhook delivery, by organization (read at a scrape, at most once a second).',
      labelNames: ['organization'] as const,
      registers,
      async collect() {
        await readStats();
        this.reset();
        for (const s of stats()) this.set({ organization: s.organizationId }, Math.max(0, (now() - s.oldestCreatedAt) / 1000));
      },
    });
    const view = deps.view;
    new Gauge({
      name: 'thingdesk_webhook_endpoints',
      help: 'Webhook endpoints, by health state.',
      labelNames: ['state'] as const,
      registers,
      collect() {
        const counts = { healthy: 0, failing: 0, disabled: 0 };
        for (const e of view.all()) counts[e.enabled ? e.health.state : 'disabled'] += 1;
        for (const [state, n] of Object.entries(counts)) this.set({ state }, n);
      },
    });
  }

  start(): void {
    this.timer = setInterval(() => this.tick(), this.settings.pollMs ?? 250);
    if (!this.settings.soleDispatcher) this.tick();
    else
      void this.deps.store.webhooks
        .releaseLeases()
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'webhook leases not released'))
        .then(() => this.tick());
  }

  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    await Promise.allSettled([...this.running]);
    // What waited in the lanes is given back, so the next start (or another instance) sends it at once.
    for (const { timer } of this.held.values()) clearTimeout(timer);
    const waiting = [...this.queued.values(), ...[...this.held.values()].map((h) => h.deliveries)].flat();
    this.queued.clear();
    this.held.clear();
    await Promise.all(waiting.map((d) => this.deps.store.webhooks.release(d.id).catch(() => undefined)));
  }

  /** Reads the queue's figures for a scrape; scrapes within a second of a read share it (one query per second at most). */
  private readQueueStats(): Promise<void> {
    const now = this.deps.clock.now();
    if (this.statsRead && now - this.statsRead.at < 1_000) return this.statsRead.reading;
    const reading = this.deps.store.webhooks
      .queueStats()
      .then((s) => void (this.queueStats = s))
      .catch(() => undefined);
    this.statsRead = { at: now, reading };
    return reading;
  }

  /** OutboxHandOff: a healthy, enabled lane with room takes new deliveries in memory. */
  accepts(endpointId: string): boolean {
    if (this.stopping) return false;
    const endpoint = this.deps.view.get(endpointId);
    if (!endpoint?.enabled) return false;
    if ((this.health.get(endpointId)?.health ?? endpoint.health).state !== 'healthy') return false;
    const waiting = (this.queued.get(endpointId)?.length ?? 0) + (this.held.get(endpointId)?.deliveries.length ?? 0);
    return waiting < this.settings.concurrency * handOffPerSlot;
  }

  /** OutboxHandOff: committed deliveries written leased to this instance; due ones start now, the others when due. */
  take(rows: readonly OutboxRow[]): void {
    const now = this.deps.clock.now();
    const touched = new Set<string>();
    for (const row of rows) {
      const delivery: Leased = {
        id: row.id,
        organizationId: row.organizationId,
        endpointId: row.endpointId,
        eventTypes: JSON.parse(row.eventTypes) as string[],
        events: row.events,
        eventCount: row.eventCount,
        status: 'pending',
        attemptCount: 0,
        nextAttemptAt: row.nextAttemptAt,
        createdAt: row.createdAt,
        updatedAt: row.createdAt,
        leaseUntil: row.leaseUntil ?? now + this.leaseMs,
      };
      if (row.nextAttemptAt > now) this.hold(delivery);
      else {
        const queue = this.queued.get(row.endpointId) ?? [];
        queue.push(delivery);
        this.queued.set(row.endpointId, queue);
        touched.add(row.endpointId);
      }
    }
    for (const endpointId of touched) this.fill(endpointId, false);
  }

  /** Keeps a handed-over delivery until it is due; then (a batching endpoint's partial ones joined) into the lane. */
  private hold(delivery: Leased): void {
    const entry = this.held.get(delivery.endpointId) ?? { deliveries: [], timer: undefined };
    this.held.set(delivery.endpointId, entry);
    entry.deliveries.push(delivery);
    if (entry.timer) return;
    const release = () => {
      entry.timer = undefined;
      const now = this.deps.clock.now();
      const due = entry.deliveries.filter((d) => d.nextAttemptAt <= now);
      entry.deliveries = entry.deliveries.filter((d) => d.nextAttemptAt > now);
      if (entry.deliveries.length > 0)
        entry.timer = setTimeout(release, Math.max(1, Math.min(...entry.deliveries.map((d) => d.nextAttemptAt)) - now));
      else this.held.delete(delivery.endpointId);
      const endpoint = this.deps.view.get(delivery.endpointId);
      if (due.length === 0 || this.stopping) return;
      if (!endpoint?.enabled) {
        this.track(Promise.all(due.map((d) => this.deps.store.webhooks.release(d.id))).then(() => undefined));
        return;
      }
      const joined = endpoint.batchMaxEvents > 1 ? this.join(endpoint, due) : Promise.resolve(due);
      const queued = joined
        .then((deliveries) => {
          const queue = this.queued.get(endpoint.id) ?? [];
          queue.push(...deliveries);
          this.queued.set(endpoint.id, queue);
          this.fill(endpoint.id, false);
        })
        .catch((error: unknown) => this.deps.logger.warn({ err: error, webhookId: endpoint.id }, 'webhook join failed'));
      this.track(queued);
    };
    entry.timer = setTimeout(release, Math.max(1, delivery.nextAttemptAt - this.deps.clock.now()));
  }

  private tick(): void {
    if (this.stopping) return;
    for (const id of this.queued.keys()) if (!this.deps.view.get(id)) this.queued.delete(id);
    for (const endpoint of this.deps.view.enabled()) this.fill(endpoint.id, true);
  }

  /**
   * Starts what the lane's queue holds as far as its room goes; with `claim`, then claims due deliveries from the
   * store for the room left and one round ahead.
   */
  private fill(endpointId: string, claim: boolean): void {
    const endpointNow = this.deps.view.get(endpointId);
    // A failing endpoint is probed one attempt at a time until one succeeds (then what waited is due at once):
    // a receiver that is down costs a request and a record at a time, not a lane's worth, and ingest keeps its writer.
    const failing = (this.health.get(endpointId)?.health ?? endpointNow?.health)?.state === 'failing';
    const slots = failing ? 1 : this.settings.concurrency;
    const room = slots - (this.inFlight.get(endpointId) ?? 0);
    if (room <= 0 || this.stopping) return;
    // Claimed earlier or handed over, and waiting here first: no query while the lane's own queue has work.
    const waiting = this.queued.get(endpointId);
    if (waiting && waiting.length > 0 && endpointNow?.enabled) {
      let started = 0;
      const now = this.deps.clock.now();
      while (started < room && waiting.length > 0) {
        const delivery = waiting.shift()!;
        // Too little lease left for an attempt: left to whoever claims it once the lease ends, so that no other
        // instance can claim it while this one sends it.
        if (delivery.leaseUntil - now < this.settings.timeoutMs + 1_000) continue;
        this.launch(endpointNow, delivery);
        started += 1;
      }
      // Refilled once half of what was claimed ahead is gone, so the next claim lands before the queue runs dry.
      if (waiting.length > Math.max(slots, this.aheadOf(endpointId, slots) / 2)) return;
    }
    if (!claim) return;
    if (this.claiming.has(endpointId)) {
      // Asked to claim while a claim runs (a retry came due): once more after it, not a poll later.
      this.claimAgain.add(endpointId);
      return;
    }
    const endpoint = endpointNow;
    const now = this.deps.clock.now();
    // Covers the rounds a claimed delivery may wait in the lane's queue and its own attempt.
    const lease = now + this.leaseMs;
    const batching = endpoint !== undefined && endpoint.batchMaxEvents > 1;
    // A lane claims rounds ahead (one query per many attempts: a backlog drains at the receiver's pace, not the
    // store's); a delivery whose lease would run out in the queue is left to a later claim (above).
    const ahead = this.aheadOf(endpointId, slots) - (this.queued.get(endpointId)?.length ?? 0) - (this.inFlight.get(endpointId) ?? 0);
    if (ahead <= 0) return;
    this.claiming.add(endpointId);
    this.claimAgain.delete(endpointId);
    const limit = batching ? ahead * 20 : ahead;
    const claiming = this.deps.store.webhooks
      .claimDue(endpointId, limit, now, lease)
      .then(async (claimedRows) => {
        const claimed = claimedRows.map((d): Leased => ({ ...d, leaseUntil: lease }));
        if (claimed.length >= limit) this.backlog.add(endpointId);
        else this.backlog.delete(endpointId);
        const current = this.deps.view.get(endpointId);
        if (!current?.enabled) {
          await Promise.all(claimed.map((d) => this.deps.store.webhooks.release(d.id)));
          return;
        }
        const deliveries = batching ? await this.join(current, claimed) : claimed;
        const queue = this.queued.get(endpointId) ?? [];
        queue.push(...deliveries);
        this.queued.set(endpointId, queue);
        const free = this.settings.concurrency - (this.inFlight.get(endpointId) ?? 0);
        for (const delivery of queue.splice(0, Math.max(0, free))) this.launch(current, delivery);
        // A full claim means more may be due: look again once a slot frees (launch does) or now if room is left.
        if (claimed.length > 0 && (this.inFlight.get(endpointId) ?? 0) < this.settings.concurrency)
          setImmediate(() => this.fill(endpointId, true));
      })
      .catch((error: unknown) => this.deps.logger.warn({ err: error, webhookId: endpointId }, 'webhook claim failed'))
      .finally(() => {
        this.claiming.delete(endpointId);
        if (this.claimAgain.delete(endpointId)) setImmediate(() => this.fill(endpointId, true));
      });
    this.track(claiming);
  }

  /** Joins untried deliveries into deliveries of at most batch_max_events events; the rest go as they are. */
  private async join(endpoint: WebhookEndpoint, claimed: Leased[]): Promise<Leased[]> {
    const out: Leased[] = [];
    let group: Leased[] = [];
    let count = 0;
    const flush = async () => {
      if (group.length === 0) return;
      if (group.length === 1) out.push(group[0]!);
      else {
        const [first, ...others] = group;
        const events = `[${group.map((d) => d.events.slice(1, -1)).join(',')}]`;
        const types = [...new Set(group.flatMap((d) => d.eventTypes))];
        await this.deps.store.webhooks.joinUntried(first!, others, events, types, count);
        const leaseUntil = Math.min(...group.map((d) => d.leaseUntil));
        out.push({ ...first!, events, eventTypes: types, eventCount: count, leaseUntil });
      }
      group = [];
      count = 0;
    };
    for (const delivery of claimed) {
      if (delivery.attemptCount > 0) {
        out.push(delivery);
        continue;
      }
      if (count + delivery.eventCount > endpoint.batchMaxEvents) await flush();
      group.push(delivery);
      count += delivery.eventCount;
    }
    await flush();
    return out;
  }

  private launch(endpoint: WebhookEndpoint, delivery: WebhookDelivery): void {
    this.inFlight.set(endpoint.id, (this.inFlight.get(endpoint.id) ?? 0) + 1);
    const run = this.attempt(endpoint, delivery, false)
      .then(() => undefined)
      .catch((error: unknown) =>
        this.deps.logger.error({ err: error, webhookId: endpoint.id, deliveryId: delivery.id }, 'webhook attempt failed'),
      )
      .finally(() => {
        this.inFlight.set(endpoint.id, (this.inFlight.get(endpoint.id) ?? 1) - 1);
        this.paced(endpoint.id);
        this.fill(endpoint.id, this.backlog.has(endpoint.id) || this.claimAgain.has(endpoint.id));
      });
    this.track(run);
  }

  private paced(endpointId: string): void {
    const second = Math.floor(this.deps.clock.now() / 1000);
    const pace = this.pace.get(endpointId);
    if (!pace) this.pace.set(endpointId, { second, current: 1, previous: 0 });
    else if (pace.second === second) pace.current += 1;
    else {
      pace.previous = pace.second === second - 1 ? pace.current : 0;
      pace.second = second;
      pace.current = 1;
    }
  }

  /** How many deliveries the lane wants claimed or in flight (roundsAhead, paceAheadS). */
  private aheadOf(endpointId: string, slots: number): number {
    const pace = this.pace.get(endpointId);
    const second = Math.floor(this.deps.clock.now() / 1000);
    // The last whole second's attempts, or the current one's when it already has more.
    const perSecond = !pace
      ? 0
      : pace.second === second
        ? Math.max(pace.previous, pace.current)
        : pace.second === second - 1
          ? pace.current
          : 0;
    return Math.max(slots * roundsAhead, Math.min(mostAhead, Math.ceil(perSecond * paceAheadS)));
  }

  /** The test event: sent once now, logged, never retried. */
  async sendNow(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<WebhookAttempt> {
    return this.attempt(endpoint, delivery, true);
  }

  private async attempt(endpoint: WebhookEndpoint, delivery: WebhookDelivery, once: boolean): Promise<WebhookAttempt> {
    const at = this.deps.clock.now();
    const result = await this.send(endpoint, delivery, at);
    this.latency.observe(result.durationMs / 1000);
    const attempt: WebhookAttempt = {
      deliveryId: delivery.id,
      endpointId: endpoint.id,
      at,
      statusCode: result.statusCode,
      durationMs: result.durationMs,
      error: result.error,
      responseExcerpt: result.responseExcerpt,
    };
    const ok = result.error === null;
    const gone = result.statusCode === 410;
    const outcome = once
      ? { status: ok ? ('succeeded' as const) : ('failed' as const), attemptCount: 1, nextAttemptAt: at }
      : this.outcomeOf(delivery, result, at, gone);
    const recorded = this.record(attempt, outcome);
    // The lane's slot is given back without waiting for the record (its lease keeps the delivery unclaimed), unless
    // records pile up; the test event's answer follows its record.
    if (once || this.toRecord.length > recordBacklog) await recorded;
    else
      this.track(
        recorded.then(
          () => this.retrySoon(endpoint.id, outcome),
          (error: unknown) => this.deps.logger.error({ err: error, deliveryId: delivery.id }, 'webhook attempt not recorded'),
        ),
      );
    this.outcomes.inc({ outcome: gone ? 'disabled' : ok ? 'succeeded' : outcome.status === 'failed' ? 'failed' : 'retry' });
    // A channel has no health of its own: its deliveries are retried on the schedule and logged.
    if (endpoint.channel) return attempt;
    await this.noteHealth(endpoint, ok, result, at, gone, recorded);
    return attempt;
  }

  private async send(endpoint: WebhookEndpoint, delivery: WebhookDelivery, at: number): Promise<SendResult> {
    if (endpoint.channel) {
      const [message] = JSON.parse(delivery.events) as ChannelMessage[];
      if (!this.deps.channelSender || !message)
        return { statusCode: null, durationMs: 0, error: 'no channel sender', responseExcerpt: null, retryAfterS: null };
      return this.deps.channelSender.send(endpoint.channel, message);
    }
    const body = this.bodyOf(endpoint, delivery, at);
    const timestampS = Math.floor(at / 1000);
    const headers = {
      'webhook-id': delivery.id,
      'webhook-timestamp': String(timestampS),
      'webhook-signature': webhookSignature(this.secretsOf(endpoint, at), delivery.id, timestampS, body),
    };
    return this.deps.sender.send(endpoint.url, headers, body, endpoint.id);
  }

  /** A retry due before the next poll is claimed when due (its record has ended the lease), not a poll later. */
  private retrySoon(endpointId: string, outcome: AttemptOutcome): void {
    if (outcome.status !== 'pending' || this.stopping) return;
    const wait = outcome.nextAttemptAt - this.deps.clock.now();
    if (wait >= (this.settings.pollMs ?? 250)) return;
    setTimeout(
      () => {
        // Claimed when the lane next has room (a slot may still be finishing its attempt).
        this.claimAgain.add(endpointId);
        this.fill(endpointId, true);
      },
      Math.max(0, wait),
    ).unref();
  }

  private outcomeOf(delivery: WebhookDelivery, result: SendResult, now: number, gone: boolean): AttemptOutcome {
    const attemptCount = delivery.attemptCount + 1;
    if (result.error === null) return { status: 'succeeded', attemptCount, nextAttemptAt: now };
    // 410: the endpoint is disabled; the delivery waits for it to be enabled again (then it is due at once).
    if (gone) return { status: 'pending', attemptCount, nextAttemptAt: now };
    const delayMs = retryDelayMs(this.settings.retryScheduleS, attemptCount, result.retryAfterS);
    if (delayMs === undefined) return { status: 'failed', attemptCount, nextAttemptAt: now };
    return { status: 'pending', attemptCount, nextAttemptAt: now + delayMs };
  }

  private bodyOf(endpoint: WebhookEndpoint, delivery: WebhookDelivery, at: number): string {
    if (endpoint.batchMaxEvents > 1) return `{"type":"batch","timestamp":${JSON.stringify(rfc3339(at))},"data":${delivery.events}}`;
    // One event: the array's only element.
    return delivery.events.slice(1, -1);
  }

  private secretsOf(endpoint: WebhookEndpoint, now: number): string[] {
    const secrets = [this.unsealCached(endpoint.sealedSecret)];
    if (endpoint.sealedPreviousSecret !== null && (endpoint.previousSecretUntil ?? 0) > now)
      secrets.push(this.unsealCached(endpoint.sealedPreviousSecret));
    return secrets;
  }

  private unsealCached(sealed: string): string {
    let plain = this.unsealed.get(sealed);
    if (plain === undefined) {
      if (this.unsealed.size > 10_000) this.unsealed.clear();
      this.unsealed.set(sealed, (plain = this.deps.unseal(sealed)));
    }
    return plain;
  }

  /**
   * Health after an attempt: a success makes the endpoint healthy; a failure makes it failing (since now), and
   * disabled once it has failed for WEBHOOK_DISABLE_AFTER_S without a success, or at once on 410. State changes
   * are stored and logged at once, after the attempt that caused them is in the log (whoever reads "disabled" finds
   * that attempt); the last error and success otherwise at most once a second.
   */
  private async noteHealth(
    endpoint: WebhookEndpoint,
    ok: boolean,
    result: SendResult,
    now: number,
    gone: boolean,
    recorded: Promise<void>,
  ): Promise<void> {
    const known = this.health.get(endpoint.id) ?? { health: endpoint.health, savedAt: 0 };
    const before = known.health;
    let health: WebhookHealth;
    if (ok) health = { state: 'healthy', failingSince: null, lastError: before.lastError, lastSuccessAt: now };
    else {
      const failingSince = before.failingSince ?? now;
      const tooLong = now - failingSince >= this.settings.disableAfterS * 1000;
      health = {
        state: gone || tooLong ? 'disabled' : 'failing',
        failingSince,
        lastError: result.error,
        lastSuccessAt: before.lastSuccessAt,
      };
    }
    const changed = health.state !== before.state;
    this.health.set(endpoint.id, { health, savedAt: changed || now - known.savedAt >= 1000 ? now : known.savedAt });
    if (!changed && now - known.savedAt < 1000) return;
    // A record that failed is logged where it is awaited; the state change is stored all the same.
    if (changed) await recorded.catch(() => undefined);
    const disable = health.state === 'disabled';
    await this.deps.store.webhooks.updateEndpoint(
      endpoint.organizationId,
      endpoint.id,
      { health, ...(disable && { enabled: false }) },
      now,
    );
    if (!changed) return;
    this.health.delete(endpoint.id);
    const fields = { webhookId: endpoint.id, organizationId: endpoint.organizationId, state: health.state, lastError: health.lastError };
    if (health.state === 'healthy') {
      this.deps.logger.info(fields, 'webhook endpoint healthy again');
      // The receiver is back: what waited for a later retry is due now, so the backlog drains at once.
      await this.deps.store.webhooks.bringForward(endpoint.id, now);
      this.backlog.add(endpoint.id);
    } else this.deps.logger.warn(fields, health.state === 'disabled' ? 'webhook endpoint disabled' : 'webhook endpoint failing');
    this.deps.events.emit('webhooksChanged', { organizationId: endpoint.organizationId });
    await this.deps.view.reload();
  }

  /**
   * Attempts are written in groups: what finished within one turn of the writes goes in one transaction (on SQLite
   * a write on the main connection waits for the ingest writer's lock, so one per attempt would hold the event loop
   * that often). The lane's slot is given back before the record is written; the delivery's lease keeps it from
   * being claimed again until then.
   */
  private record(attempt: WebhookAttempt, outcome: AttemptOutcome): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.toRecord.push({ attempt, outcome, resolve, reject });
      this.flushing ??= (async () => {
        await new Promise((next) => setImmediate(next));
        while (this.toRecord.length > 0) {
          const group = this.toRecord.splice(0, 500);
          try {
            await this.deps.store.webhooks.recordAttempts(group);
            for (const entry of group) entry.resolve();
          } catch (error) {
            for (const entry of group) entry.reject(error);
          }
        }
        this.flushing = undefined;
      })();
    });
  }

  private track(work: Promise<void>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }
}
