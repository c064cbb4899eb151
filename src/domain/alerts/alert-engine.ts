import { randomUUID } from 'node:crypto';
import type { Config } from '../../config/config.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DomainEventBus } from '../events.js';
import type { StoredMessage } from '../messages/message-types.js';
import { ActiveAlertIndex } from './active-alert-index.js';
import { alertThresholds, connectionAlertExemptStatuses, type AlertThresholds } from './alert-rules.js';
import { alertTypes, type AlertChange } from './alert-types.js';
import { RuleEvaluator } from '../rules/rule-evaluator.js';

/** Tells every listener of `alertChanged` (feeds, subscriptions, the engines' memories) about one period change. */
export function announceAlertChange(events: DomainEventBus, change: AlertChange): void {
  events.emit('alertChanged', {
    organizationId: change.organizationId,
    tuid: change.tuid,
    alertType: change.alertType,
    state: change.closedAt === null ? 'opened' : 'closed',
    openedAt: change.openedAt,
    closedAt: change.closedAt,
    gatewayTuid: change.gatewayTuid,
    ...(change.rule && { rule: change.rule }),
  });
}

/** The lease that elects the one instance running the timer evaluation. */
export const alertEngineLease = 'alert-engine';

/** setTimeout fires at once for delays above 2^31-1 ms; longer intervals wait that long instead. */
const maxTimerDelayMs = 2 ** 31 - 1;

export interface AlertEngineDeps {
  store: Store;
  clock: Clock;
  events: DomainEventBus;
  logger: { error(details: object, message: string): void };
  config: Pick<Config, 'gatewayTimeoutS' | 'deviceTimeoutS' | 'alertIntervalS' | 'batteryLowPercent' | 'batteryOkPercent'>;
  /** Who holds the lease; random per process unless given. */
  instanceId?: string;
}

/**
 * The alert engine (SPEC section 7). Opens and closes alert periods per thing and type:
 *
 * - On ingest (every instance, after commit): a battery report crossing a threshold, a thing or gateway with an
 *   active connection alert heard again. Decided in memory first (`ActiveAlertIndex`), so a batch that can change
 *   nothing costs no query.
 * - On a timer every ALERT_INTERVAL_S, only on the instance holding the `alert-engine` lease: silence opens
 *   connection alerts, and every rule is re-checked from the store, closing what ingest could not see (another
 *   instance's alert, a crash between commit and listener, a thing retired meanwhile).
 *
 * Every change emits `alertChanged` (the MQTT alert feed and GraphQL subscriptions listen). The constructor does
 * nothing; `start()` subscribes, runs once and schedules the timer; `stop()` undoes that and gives the lease up.
 */
export class AlertEngine {
  /** This instance's name in the lease. */
  readonly instanceId: string;
  /** A holder that stops renewing loses the lease after this long; another instance takes over at its next run. */
  readonly leaseTtlMs: number;
  private readonly thresholds: AlertThresholds;
  private readonly index = new ActiveAlertIndex();
  /** The organizations' own rules (SPEC section 13), evaluated beside the built-in ones. */
  private readonly rules: RuleEvaluator;
  private readonly pending = new Set<Promise<unknown>>();
  private started = false;
  private timer: NodeJS.Timeout | undefined;
  private stopListening: (() => void) | undefined;

  constructor(private readonly deps: AlertEngineDeps) {
    this.instanceId = deps.instanceId ?? randomUUID();
    this.leaseTtlMs = 3 * deps.config.alertIntervalS * 1000;
    this.thresholds = alertThresholds(deps.config);
    this.rules = new RuleEvaluator(deps);
  }

  /**
   * Active alerts by type as this instance knows them: every organization's, read from the store at each timer
   * run (ALERT_INTERVAL_S) and kept up to date by this instance's own changes.
   */
  activeAlertCounts(): Record<string, number> {
    return this.index.counts();
  }

  /** Reads the alert rules again now (they reload by themselves on every instance's change, relayed; tests wait on this). */
  reloadRules(): Promise<void> {
    return this.rules.reload();
  }

  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    await this.rules.start();
    this.stopListening = this.deps.events.on('messagesStored', ({ messages }) => this.track(this.evaluateIngest(messages)));
    await this.track(this.runScheduledSafely());
    this.schedule();
  }

  /** Stops the timer and the ingest listener, waits for running evaluations, then releases the lease. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    clearTimeout(this.timer);
    this.stopListening?.();
    this.rules.stop();
    await this.settled();
    await this.deps.store.leases
      .release(alertEngineLease, this.instanceId)
      .catch((error: unknown) => this.deps.logger.error({ err: error }, 'alert lease release failed'));
  }

  /** Resolves when every evaluation started so far (ingest or timer) has finished; for tests and shutdown. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  /**
   * One timer run: takes or renews the lease; the holder evaluates every rule. Every instance then refreshes its
   * picture of the active alerts. True when this instance held the lease and evaluated.
   */
  async runScheduled(): Promise<boolean> {
    const held = await this.deps.store.leases.acquire(alertEngineLease, this.instanceId, this.deps.clock.now(), this.leaseTtlMs);
    if (held) await this.evaluateSilence();
    this.index.replace(await this.deps.store.alertEvaluation.listActive(alertTypes));
    await this.rules.refresh();
    return held;
  }

  /**
   * Evaluates every rule over all things at `clock.now()`, set-based: closes first (a thing heard since its period
   * began), then opens (so a thing heard and silent again gets a new period). Ignores the lease: the timer calls it
   * through `runScheduled`, tests call it directly. Returns the changes it made.
   */
  async evaluateSilence(): Promise<AlertChange[]> {
    const s = this.deps.store.alertEvaluation;
    const now = this.deps.clock.now();
    const t = this.thresholds;
    const device = { now, timeoutMs: t.deviceTimeoutMs, exemptStatuses: connectionAlertExemptStatuses };
    const gateway = { now, timeoutMs: t.gatewayTimeoutMs, exemptStatuses: connectionAlertExemptStatuses };
    const changes: AlertChange[] = [];
    changes.push(...(await s.closeDeviceSilence(device)));
    changes.push(...(await s.closeGatewaySilence(gateway)));
    changes.push(...(await s.closeBatteryLow({ at: now, okPercent: t.batteryOkPercent })));
    changes.push(...(await s.openDeviceSilence(device)));
    changes.push(...(await s.openGatewaySilence(gateway)));
    changes.push(...(await s.openBatteryLow({ at: now, lowPercent: t.batteryLowPercent })));
    changes.push(...(await this.rules.evaluateScheduled()));
    this.announce(changes);
    return changes;
  }

  /** The ingest side: closes connection alerts of what was heard, opens or closes battery low. */
  private async evaluateIngest(messages: readonly StoredMessage[]): Promise<void> {
    const plan = this.index.plan(messages, this.thresholds);
    const s = this.deps.store.alertEvaluation;
    const changes: AlertChange[] = [];
    if (plan.heard) changes.push(...(await s.closeHeard(plan.heard)));
    if (plan.batteryLow) changes.push(...(await s.openBatteryLow({ ...plan.batteryLow, lowPercent: this.thresholds.batteryLowPercent })));
    if (plan.batteryOk) changes.push(...(await s.closeBatteryLow({ ...plan.batteryOk, okPercent: this.thresholds.batteryOkPercent })));
    changes.push(...(await this.rules.evaluate(messages)));
    this.announce(changes);
  }

  private announce(changes: readonly AlertChange[]): void {
    for (const change of changes) {
      // Rule periods are the rule evaluator's: it follows them through the event below.
      if (!change.rule) this.index.apply(change);
      announceAlertChange(this.deps.events, change);
    }
  }

  private schedule(): void {
    if (!this.started) return;
    const delay = Math.min(this.deps.config.alertIntervalS * 1000, maxTimerDelayMs);
    // The next run is scheduled when this one has finished, so runs never overlap on one instance.
    this.timer = setTimeout(() => void this.track(this.runScheduledSafely()).finally(() => this.schedule()), delay);
  }

  private async runScheduledSafely(): Promise<void> {
    try {
      await this.runScheduled();
    } catch (error) {
      // A failed run (store unreachable) is retried at the next interval; the lease simply is not renewed.
      this.deps.logger.error({ err: error }, 'alert engine run failed');
    }
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    const forget = () => this.pending.delete(work);
    work.then(forget, forget);
    return work;
  }
}
