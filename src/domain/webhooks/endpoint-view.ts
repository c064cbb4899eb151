import type { Store } from '../../store/store.js';
import { coalescedReload } from '../coalesced-reload.js';
import type { DomainEventBus } from '../events.js';
import type { OutboxHandOff, OutboxTarget, OutboxTargets, WebhookEndpoint } from './webhook-types.js';

/**
 * The deployment's webhook endpoints in memory (SPEC section 11): what ingest and the other causes match their
 * events against at enqueue (no query per batch), and what the dispatcher serves. Loaded at start, reloaded whole
 * when an endpoint changes here or on another instance (`webhooksChanged`, relayed through the cluster events), and
 * every `refreshMs` in case a relayed change was missed.
 */
export class WebhookEndpointView implements OutboxTargets {
  private endpoints: WebhookEndpoint[] = [];
  private targets = new Map<string, OutboxTarget[]>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  /** The dispatcher that takes this instance's new deliveries at their commit (set by the composition root). */
  handOff?: OutboxHandOff;
  /** The notification channels, sent by the same dispatcher as endpoints of their own (set by the composition root). */
  channels?: { asEndpoints(): readonly WebhookEndpoint[] };

  constructor(
    private readonly deps: { store: Pick<Store, 'webhooks'>; events: DomainEventBus },
    readonly firstDelayMs: number,
    private readonly refreshMs = 30_000,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    this.unsubscribe = this.deps.events.onAnyInstance('webhooksChanged', () => this.reload());
    this.timer = setInterval(() => void this.reload().catch(() => undefined), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.unsubscribe?.();
  }

  /** Reads every endpoint again; calls during a load run one more load after it. */
  readonly reload = coalescedReload(async () => this.apply(await this.deps.store.webhooks.listAllEndpoints()));

  /** The enabled endpoints of an organization as outbox targets. */
  of(organizationId: string): readonly OutboxTarget[] {
    return this.targets.get(organizationId) ?? noTargets;
  }

  /** Every endpoint that may be sent to now. */
  enabled(): readonly WebhookEndpoint[] {
    return [...this.endpoints.filter((e) => e.enabled), ...(this.channels?.asEndpoints() ?? [])];
  }

  /** The webhook endpoints (not the channels). */
  all(): readonly WebhookEndpoint[] {
    return this.endpoints;
  }

  get(id: string): WebhookEndpoint | undefined {
    return this.endpoints.find((e) => e.id === id) ?? this.channels?.asEndpoints().find((e) => e.id === id);
  }

  private apply(endpoints: WebhookEndpoint[]): void {
    const targets = new Map<string, OutboxTarget[]>();
    for (const e of endpoints) {
      if (!e.enabled) continue;
      const list = targets.get(e.organizationId) ?? [];
      list.push({
        endpointId: e.id,
        organizationId: e.organizationId,
        events: e.events,
        groupIds: e.groupIds,
        tuids: e.tuids,
        tsmIds: e.tsmIds,
        batchMaxEvents: e.batchMaxEvents,
        batchMaxWaitMs: e.batchMaxWaitMs,
      });
      targets.set(e.organizationId, list);
    }
    this.endpoints = endpoints;
    this.targets = targets;
  }
}

const noTargets: readonly OutboxTarget[] = Object.freeze([]);
