import type { Metrics } from '../observability/metrics.js';
import type { DomainEventBus } from '../domain/events.js';
import type { CommitIngestBatch } from '../store/batch-writer/batch-writer.js';
import { deadLetter, defaultUplinkLimits, parseUplink, type UplinkLimits, type UplinkSource } from './parse-uplink.js';
import { UplinkBatcher, type BatchCommitted } from './uplink-batcher.js';

export interface IngestDeps {
  commit: CommitIngestBatch;
  /** Whether an organization exists: uplinks on an external broker name theirs in the topic, unchecked. */
  organizationExists(organizationId: string): Promise<boolean>;
  events: DomainEventBus;
  metrics: Metrics;
  maxBatch: number;
  maxConcurrent: number;
  /** Parsed records queued at most before further payloads wait unparsed (default: two batches). */
  maxQueued?: number;
  /** Messages per payload and bytes per message (default: the defaults of UPLINK_MAX_MESSAGES, MESSAGE_MAX_BYTES). */
  limits?: UplinkLimits;
  /** Told of every payload that stored messages, after commit: which gateway published it, with which credential. */
  gatewaySeen?: (from: UplinkSource) => void;
}

/**
 * The uplink pipeline behind every transport: read the payload, check each message against the catalog, write
 * in batches, then tell the rest of the platform through `messagesStored`. The MQTT layer calls `ingest` and
 * acknowledges the publish only when it resolves.
 */
export class IngestService {
  private readonly batcher: UplinkBatcher;

  constructor(private readonly deps: IngestDeps) {
    this.batcher = new UplinkBatcher(
      deps.commit,
      { maxBatch: deps.maxBatch, maxConcurrent: deps.maxConcurrent, maxQueued: deps.maxQueued ?? 2 * deps.maxBatch },
      (batch) => this.committed(batch),
    );
  }

  /** Stores one uplink payload (array or single message). Resolves after commit; rejects if the store failed. */
  async ingest(payload: Buffer | string, from: UplinkSource): Promise<void> {
    if (!(await this.knownOrganization(from.organizationId))) {
      this.deps.metrics.ingestReceived.inc();
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      await this.batcher.submit([], [{ ...deadLetter(from, `unknown organization ${from.organizationId}`, text), organizationId: null }]);
      return;
    }
    // Backpressure: when the store falls behind, the payload waits here unparsed and unacknowledged.
    await this.batcher.room();
    const parsed = parseUplink(payload, from, this.deps.limits ?? defaultUplinkLimits);
    this.deps.metrics.ingestReceived.inc(parsed.received);
    if (parsed.records.length === 0 && parsed.deadLetters.length === 0) return;
    await this.batcher.submit(parsed.records, parsed.deadLetters, (error) => {
      const text = typeof payload === 'string' ? payload : payload.toString('utf8');
      const why = error instanceof Error ? error.message : String(error);
      return deadLetter(from, `the store refused this payload (${why.slice(0, 200)}); it is kept here and not retried`, text);
    });
    if (parsed.records.length > 0) this.deps.gatewaySeen?.(from);
  }

  /** Waits for queued payloads to be written (graceful shutdown). */
  drain(): Promise<void> {
    return this.batcher.drain();
  }

  private readonly organizations = new Map<string, { exists: boolean; checkedAt: number }>();

  /** Organizations are never renamed, so a positive answer is kept; a negative one is re-checked after 5 s. */
  private async knownOrganization(organizationId: string): Promise<boolean> {
    const cached = this.organizations.get(organizationId);
    if (cached && (cached.exists || performance.now() - cached.checkedAt < 5000)) return cached.exists;
    const exists = await this.deps.organizationExists(organizationId);
    if (this.organizations.size > 10_000) this.organizations.clear();
    this.organizations.set(organizationId, { exists, checkedAt: performance.now() });
    return exists;
  }

  private committed({ result, size, commitMs, maxLatencyMs }: BatchCommitted): void {
    const { metrics } = this.deps;
    metrics.ingestStored.inc(result.stored.length);
    metrics.ingestDuplicates.inc(result.duplicates);
    metrics.ingestFlagged.inc(result.stored.filter((m) => m.problems.length > 0).length);
    metrics.ingestDeadLettered.inc(result.deadLetters.length);
    metrics.ingestBatchSize.observe(size);
    metrics.ingestCommitSeconds.observe(commitMs / 1000);
    metrics.ingestLatencySeconds.observe(maxLatencyMs / 1000);
    if (result.stored.length > 0) this.deps.events.emit('messagesStored', { messages: result.stored });
  }
}
