import type { Store } from '../../store/store.js';
import { coalescedReload } from '../coalesced-reload.js';
import type { DomainEventBus } from '../events.js';
import type { WebhookEndpoint } from '../webhooks/webhook-types.js';
import type { AlertChannels, ChannelRoute, ChannelRouting, MessageSettings, NoiseSettings, NotificationChannel } from './channel-types.js';

/**
 * The deployment's notification channels in memory (SPEC section 13), with which channels each rule and each
 * built-in alert type of an organization notifies: what the outbox writer decides a change's deliveries from (no
 * query per change), and what the webhook dispatcher sends channel deliveries through (as endpoints whose only
 * events are their own). Reloaded when a channel, a rule or the organization's alert channels change here or on
 * another instance (`webhooksChanged`, `alertRulesChanged`), and every `refreshMs`.
 */
export class ChannelView implements ChannelRouting {
  private channels = new Map<string, NotificationChannel>();
  private endpoints: WebhookEndpoint[] = [];
  private routes = new Map<string, ChannelRoute>();
  private builtIn = new Map<string, AlertChannels>();
  private timer: NodeJS.Timeout | undefined;
  private readonly unsubscribes: (() => void)[] = [];

  constructor(
    private readonly deps: { store: Pick<Store, 'channels' | 'alertRules'>; events: DomainEventBus },
    readonly messages: MessageSettings,
    readonly noise: NoiseSettings,
    private readonly refreshMs = 30_000,
  ) {}

  async start(): Promise<void> {
    await this.reload();
    for (const event of ['webhooksChanged', 'alertRulesChanged'] as const)
      this.unsubscribes.push(this.deps.events.onAnyInstance(event, () => void this.reload().catch(() => undefined)));
    this.timer = setInterval(() => void this.reload().catch(() => undefined), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    for (const unsubscribe of this.unsubscribes) unsubscribe();
  }

  readonly reload = coalescedReload(async () => {
    const [channels, rules, builtIn] = await Promise.all([
      this.deps.store.channels.listAll(),
      this.deps.store.alertRules.listAll(),
      this.deps.store.channels.allAlertChannels(),
    ]);
    this.channels = new Map(channels.map((c) => [c.id, c]));
    this.endpoints = channels.map(channelEndpoint);
    const routes = new Map<string, ChannelRoute>();
    for (const r of rules)
      routes.set(r.id, {
        ruleKey: r.id,
        rule: { name: r.name, field: r.field, op: r.op, threshold: r.threshold },
        channelIds: r.channels.filter((id) => this.channels.get(id)?.organizationId === r.organizationId),
      });
    this.routes = routes;
    this.builtIn = builtIn;
  });

  routeOf(organizationId: string, alertType: string, ruleId: string | undefined): ChannelRoute | undefined {
    if (ruleId !== undefined) {
      const route = this.routes.get(ruleId);
      return route && route.channelIds.length > 0 ? route : undefined;
    }
    const ids = (this.builtIn.get(organizationId)?.[alertType] ?? []).filter(
      (id) => this.channels.get(id)?.organizationId === organizationId,
    );
    return ids.length > 0 ? { ruleKey: `builtin:${alertType}:${organizationId}`, rule: undefined, channelIds: ids } : undefined;
  }

  channel(id: string): NotificationChannel | undefined {
    return this.channels.get(id);
  }

  /** The channels as the dispatcher's endpoints. */
  asEndpoints(): readonly WebhookEndpoint[] {
    return this.endpoints;
  }
}

/**
 * A channel as a webhook endpoint: subscribed to no event (webhook events never match it), one notification per
 * delivery, always enabled; the dispatcher sends it through the channel sender (`channel` set), not signed.
 */
export function channelEndpoint(channel: NotificationChannel): WebhookEndpoint {
  return {
    id: channel.id,
    organizationId: channel.organizationId,
    url: channel.url ?? '',
    description: channel.name,
    events: [],
    groupIds: null,
    tuids: null,
    tsmIds: null,
    batchMaxEvents: 1,
    batchMaxWaitMs: 0,
    enabled: true,
    sealedSecret: '',
    sealedPreviousSecret: null,
    previousSecretUntil: null,
    health: { state: 'healthy', failingSince: null, lastError: null, lastSuccessAt: null },
    createdAt: channel.createdAt,
    updatedAt: channel.updatedAt,
    channel,
  };
}
