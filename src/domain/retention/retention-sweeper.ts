import type { Store } from '../../store/store.js';
import { recordAudit } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { systemActor } from '../audit/audit-context.js';
import type { Clock } from '../clock.js';
import { effectiveRetentionDays, retentionHorizon, type RetentionDefaults } from './retention-rules.js';
import type { MessageExpiryTarget, RetentionExpiry, SweepReport } from './retention-types.js';

/** The lease that elects the one instance sweeping a shared (PostgreSQL) store. */
export const retentionSweepLease = 'retention-sweep';

/**
 * Removes up to `limit` rollup rows of an organization for hours starting before `beforeHourStart` (ms); answers
 * how many it removed. Provided by the rollups (series) store and connected in the composition root.
 */
export type ExpireRollups = (organizationId: string, beforeHourStart: number, limit: number) => Promise<number>;
const rollupStepRows = 2000;
const hourMs = 3_600_000;
const dayMs = 86_400_000;
const minuteMs = 60_000;

export interface RetentionSweeperDeps {
  store: Store;
  clock: Clock;
  expiry: RetentionExpiry;
  defaults: RetentionDefaults;
  intervalS: number;
  /** Who holds the lease; undefined: no lease (SQLite: one process owns the store). */
  instanceId: string | undefined;
  logger: { error(details: object, message: string): void; info(details: object, message: string): void };
  /** Called with what each sweep did (metrics). */
  onSweep?: (report: SweepReport) => void;
  /** Rollup expiry (the rollups store's `expire`, in whole hours); unset: rollups are not expired. */
  expireRollups?: ExpireRollups;
  /** AUDIT_RETENTION_DAYS (0 or unset: audit entries are kept forever). */
  auditRetentionDays?: number;
  /** The webhook delivery log (SPEC 11): kept `retentionDays` (0: forever); `expire` removes at most `limit` rows before a time. */
  webhookLog?: { retentionDays: number; expire: (before: number, limit: number) => Promise<number> };
}

/**
 * The retention sweep (SPEC section 9), every RETENTION_SWEEP_INTERVAL_S on one instance at a time: raw messages
 * past their organization's retention (by arrival), rollups past theirs (and the hourly rollups of days that are
 * over compacted into days), dead letters past
 * DEAD_LETTER_RETENTION_DAYS, command history with the raw messages (installation history is kept: it is small and
 * a thing's history must never be empty). The store does the removing in small steps (RetentionExpiry), so the
 * sweep never holds ingest or reads. Sweeps never overlap on one instance: a sweep asked for while one runs
 * follows it.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private started = false;
  /** Aborted by stop(): a running sweep ends after its current step. */
  private readonly stopping = new AbortController();

  constructor(private readonly deps: RetentionSweeperDeps) {}

  /** Sweeps once now (in the background: start-up does not wait) and then every interval. */
  start(): void {
    if (this.started) return;
    this.started = true;
    void this.sweepSafely().finally(() => this.schedule());
  }

  async stop(): Promise<void> {
    this.started = false;
    clearTimeout(this.timer);
    this.stopping.abort();
    await this.running.catch(() => undefined);
    if (this.deps.instanceId !== undefined)
      await this.deps.store.leases.release(retentionSweepLease, this.deps.instanceId).catch(() => undefined);
  }

  /** One sweep; undefined when another instance holds the lease. */
  sweep(): Promise<SweepReport | undefined> {
    const next = this.running.catch(() => undefined).then(() => this.sweepOnce());
    this.running = next;
    return next;
  }

  private schedule(): void {
    if (!this.started) return;
    this.timer = setTimeout(() => void this.sweepSafely().finally(() => this.schedule()), this.deps.intervalS * 1000);
    this.timer.unref();
  }

  private async sweepSafely(): Promise<void> {
    try {
      await this.sweep();
    } catch (error) {
      // Retried at the next interval; nothing is lost by a sweep that did not run.
      this.deps.logger.error({ err: error }, 'retention sweep failed');
    }
  }

  private async sweepOnce(): Promise<SweepReport | undefined> {
    const { store, clock, expiry, defaults } = this.deps;
    const started = performance.now();
    if (this.deps.instanceId !== undefined) {
      const ttlMs = 3 * this.deps.intervalS * 1000;
      if (!(await store.leases.acquire(retentionSweepLease, this.deps.instanceId, clock.now(), ttlMs))) return undefined;
    }
    const report: SweepReport = {
      messages: 0,
      rollups: 0,
      rollupRowsCompacted: 0,
      deadLetters: 0,
      commandHistory: 0,
      partitionsDropped: 0,
      partitionsCreated: 0,
      pagesReclaimed: 0,
      auditEntries: 0,
      durationMs: 0,
    };
    const now = clock.now();
    try {
      report.partitionsCreated = await expiry.preparePartitions(now);
    } catch (error) {
      // (A week's partition cannot be created while the default partition holds rows of that week.) Expiry
      // goes on; inserts meanwhile land in the default partition.
      this.deps.logger.error({ err: error }, 'retention sweep could not create message partitions ahead');
    }

    const organizations = await store.retention.list();
    const targets: MessageExpiryTarget[] = [];
    // The longest retention in force, the default's included (an organization may follow it at any moment).
    let longestBefore = retentionHorizon(defaults.messageRetentionDays, now);
    for (const organization of organizations) {
      const before = retentionHorizon(effectiveRetentionDays(organization.messageRetentionDays, defaults.messageRetentionDays), now);
      if (before === null) longestBefore = null;
      else {
        if (longestBefore !== null) longestBefore = Math.min(longestBefore, before);
        targets.push({ organizationId: organization.organizationId, before, clearedBefore: organization.messagesClearedBefore });
      }
    }
    const signal = this.stopping.signal;
    // Compacted before raw messages expire: a thing's newest hours are rolled up from them. Raw hours that ended five
    // minutes ago (a message later than that is rolled up at ingest, as late); hourly rows of days that ended an
    // hour ago.
    report.rollupRowsCompacted = await expiry.compactRollups(
      {
        rawBefore: Math.floor((now - 5 * minuteMs) / hourMs) * (hourMs / 1000),
        hourlyBefore: Math.floor((now - hourMs) / dayMs) * (dayMs / 1000),
      },
      signal,
    );
    const messages = await expiry.expireMessages(targets, longestBefore, signal);
    report.messages = messages.rows;
    report.partitionsDropped = messages.partitionsDropped;
    for (const target of targets) report.commandHistory += await expiry.expireCommandHistory(target.organizationId, target.before, signal);

    report.rollups = await this.expireRollups(organizations, now);
    const deadLettersBefore = retentionHorizon(defaults.deadLetterRetentionDays, now);
    if (deadLettersBefore !== null) report.deadLetters = await expiry.expireDeadLetters(deadLettersBefore, signal);
    report.auditEntries = await this.expireAudit(report, now);
    const webhookLog = this.deps.webhookLog;
    const webhookLogBefore = webhookLog && retentionHorizon(webhookLog.retentionDays, now);
    if (webhookLog && webhookLogBefore !== null && webhookLogBefore !== undefined) {
      report.webhookLog = 0;
      for (;;) {
        const count = await webhookLog.expire(webhookLogBefore, rollupStepRows);
        report.webhookLog += count;
        if (count < rollupStepRows || this.stopping.signal.aborted) break;
      }
    }
    report.pagesReclaimed = await expiry.reclaimSpace(signal);
    report.durationMs = performance.now() - started;
    this.deps.onSweep?.(report);
    if (report.messages + report.rollups + report.deadLetters + report.commandHistory + report.partitionsDropped > 0)
      this.deps.logger.info({ ...report }, 'retention sweep');
    return report;
  }

  /**
   * Audit entries past AUDIT_RETENTION_DAYS, per organization, each in one transaction that moves the chain's anchor
   * to the last entry removed (the rest still verifies); then the sweep's counts as the platform's own entry in each
   * organization's log where it removed anything (`system`, `retention.sweep`).
   */
  private async expireAudit(report: SweepReport, now: number): Promise<number> {
    const { store } = this.deps;
    const before = retentionHorizon(this.deps.auditRetentionDays ?? 0, now);
    let removed = 0;
    const swept = report.messages + report.rollups + report.commandHistory > 0;
    for (const organizationId of await store.audit.organizations()) {
      const expired = before === null ? 0 : await store.transaction(() => store.audit.expire(organizationId, before));
      removed += expired;
      if (expired === 0 && !swept) continue;
      await recordAudit(this.deps, undefined, {
        organizationId,
        action: 'retention.sweep',
        target: { type: 'organization', id: organizationId },
        outcome: 'success',
        details: auditFields({
          auditEntriesExpired: expired,
          messagesExpired: report.messages,
          rollupsExpired: report.rollups,
          commandHistoryExpired: report.commandHistory,
        }),
        context: { actor: systemActor, via: 'system', requestId: null, address: null },
      });
    }
    return removed;
  }

  /** Rollups of each organization past its rollup retention, whole hours, through the hook (none until connected). */
  private async expireRollups(organizations: readonly { organizationId: string; rollupRetentionDays: number | null }[], now: number) {
    const expire = this.deps.expireRollups;
    if (!expire) return 0;
    let removed = 0;
    for (const organization of organizations) {
      const before = retentionHorizon(
        effectiveRetentionDays(organization.rollupRetentionDays, this.deps.defaults.rollupRetentionDays),
        now,
      );
      if (before === null) continue;
      const beforeHourStart = Math.floor(before / hourMs) * hourMs;
      for (;;) {
        const count = await expire(organization.organizationId, beforeHourStart, rollupStepRows);
        removed += count;
        if (count < rollupStepRows || this.stopping.signal.aborted) break;
      }
    }
    return removed;
  }
}
