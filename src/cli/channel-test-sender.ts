import type { Config } from '../config/config.js';
import { DomainEventBus } from '../domain/events.js';
import { allowListOf } from '../domain/webhooks/address-rules.js';
import { WebhookEndpointView } from '../domain/webhooks/endpoint-view.js';
import type { WebhookServices } from '../domain/webhooks/webhook-types.js';
import { ChannelSender } from '../integration/channel-sender.js';
import { WebhookDispatcher } from '../integration/webhook-dispatcher.js';
import { WebhookSender } from '../integration/webhook-sender.js';
import { createLogger } from '../observability/logger.js';
import type { Store } from '../store/store.js';
import type { Clock } from '../domain/clock.js';

/**
 * `thingdesk channel test` sends without a running platform: a channel needs only SMTP_URL/SMTP_FROM (e-mail) or
 * the webhook address rules (chat), all in the configuration. The attempt goes through the platform's own path (a
 * dispatcher that is never started, so it claims nothing: its `sendNow` sends once and records the attempt in the
 * channel's log), with the same timeouts as a running platform.
 */
export async function withChannelTestSender<T>(
  config: Config,
  deps: { store: Store; clock: Clock },
  work: (sendNow: WebhookServices['sendNow']) => Promise<T>,
): Promise<T> {
  const events = new DomainEventBus(() => undefined);
  const sender = new WebhookSender({
    allow: allowListOf(config.webhookAllowPrivate),
    timeoutMs: config.webhookTimeoutMs,
    connections: 1,
  });
  const channelSender = new ChannelSender({ url: config.smtpUrl, from: config.smtpFrom, timeoutMs: config.webhookTimeoutMs }, sender);
  const dispatcher = new WebhookDispatcher(
    {
      ...deps,
      events,
      view: new WebhookEndpointView({ store: deps.store, events }, 0),
      sender,
      channelSender,
      unseal: () => {
        throw new Error('a channel is never signed');
      },
      logger: createLogger('silent'),
    },
    {
      retryScheduleS: config.webhookRetryScheduleS,
      concurrency: 1,
      timeoutMs: config.webhookTimeoutMs,
      disableAfterS: config.webhookDisableAfterS,
      soleDispatcher: false,
    },
  );
  try {
    return await work((endpoint, delivery) => dispatcher.sendNow(endpoint, delivery));
  } finally {
    channelSender.close();
    await sender.close();
  }
}
