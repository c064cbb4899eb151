import type { Command } from 'commander';
import { openSigningKeys } from '../../app/signing-key-sealing.js';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import { serviceUnavailable } from '../../domain/errors.js';
import { DomainEventBus } from '../../domain/events.js';
import { allowListOf } from '../../domain/webhooks/address-rules.js';
import {
  createWebhook,
  listWebhookDeliveries,
  listWebhooks,
  replayWebhookDeliveries,
  type WebhookDeps,
} from '../../domain/webhooks/webhook-service.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');

/** The operator at the command line acts for the organization as its API clients do. */
function operatorOf(organizationId: string): ClientPrincipal {
  return { kind: 'client', organizationId, clientId: 'cli', responsible: 'cli' };
}

/**
 * `thingdesk webhook create|list|deliveries|replay --org ...` (SPEC section 11). They work on the store; a running
 * platform picks up a new endpoint within 30 s (its endpoint view's refresh), and replayed deliveries at its next look.
 */
export function registerWebhookCommands(program: Command, io: CliIo): void {
  const webhook = program.command('webhook').description('manage webhook endpoints, their delivery log and replays');
  const names = {
    fields: { url: '--url', events: '--events', groupIds: '--group-ids', tuids: '--tuids', tsmIds: '--tsm-ids' },
    hints: { NOT_FOUND: 'the webhook id' },
  };
  const withWebhooks = <T>(work: (deps: WebhookDeps) => Promise<T>) =>
    withStore(
      io,
      async (deps, config) => {
        const signingKeys = await openSigningKeys(deps.store.signingKeys, deps.clock, config, 'reload');
        const events = new DomainEventBus(() => undefined);
        return work({
          ...deps,
          events,
          webhooks: {
            seal: (secret) => signingKeys.sealOther(secret),
            allow: allowListOf(config.webhookAllowPrivate),
            secretOverlapS: config.webhookSecretOverlapS,
            sendNow: () => Promise.reject(serviceUnavailable('The test event is sent by a running platform (REST or GraphQL).')),
          },
        });
      },
      names,
    );

  webhook
    .command('create')
    .description('create an endpoint; prints its signing secret once')
    .requiredOption('--org <organizationId>', 'organization id')
    .requiredOption('--url <url>', 'where events are POSTed (http or https)')
    .requiredOption('--events <types>', 'comma-separated: message.stored, alert.opened, alert.closed, command.answered, thing.changed')
    .option('--description <text>', 'free text')
    .option('--group-ids <ids>', 'only events of things in these groups (comma-separated)')
    .option('--tuids <tuids>', 'only events of these things (comma-separated)')
    .option('--tsm-ids <ids>', 'only message.stored of these message ids (comma-separated)')
    .option('--batch-max-events <n>', 'events per POST (1 to 1000)')
    .option('--json', 'print the result as JSON')
    .action(
      async (options: {
        org: string;
        url: string;
        events: string;
        description?: string;
        groupIds?: string;
        tuids?: string;
        tsmIds?: string;
        batchMaxEvents?: string;
        json?: boolean;
      }) => {
        const created = await withWebhooks((deps) =>
          createWebhook(deps, operatorOf(options.org), {
            url: options.url,
            events: list(options.events),
            description: options.description,
            groupIds: list(options.groupIds),
            tuids: list(options.tuids),
            tsmIds: list(options.tsmIds)?.map(Number),
            batchMaxEvents: options.batchMaxEvents === undefined ? undefined : Number(options.batchMaxEvents),
          }),
        );
        printRecord(
          io,
          'Created webhook (the secret is shown only now)',
          {
            id: created.id,
            organizationId: created.organizationId,
            url: created.url,
            events: created.events.join(','),
            secret: created.secret,
          },
          !!options.json,
        );
      },
    );

  webhook
    .command('list')
    .description("list an organization's endpoints with their health")
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--json', 'print the result as JSON lines')
    .action(async (options: { org: string; json?: boolean }) => {
      const endpoints = await withWebhooks((deps) => listWebhooks(deps, operatorOf(options.org)));
      for (const e of endpoints)
        printRecord(
          io,
          `Webhook ${e.id}`,
          {
            id: e.id,
            url: e.url,
            events: e.events.join(','),
            enabled: e.enabled,
            health: e.enabled ? e.health.state : 'disabled',
            lastError: e.health.lastError,
          },
          !!options.json,
        );
    });

  webhook
    .command('deliveries')
    .description("an endpoint's delivery log, newest first")
    .requiredOption('--org <organizationId>', 'organization id')
    .argument('<webhookId>', 'the endpoint')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'at most this many (1 to 200)', '50')
    .option('--json', 'print the result as JSON lines')
    .action(async (webhookId: string, options: { org: string; status?: string; limit: string; json?: boolean }) => {
      const page = await withWebhooks((deps) =>
        listWebhookDeliveries(deps, operatorOf(options.org), webhookId, { status: options.status, limit: Number(options.limit) }),
      );
      for (const d of page.deliveries) {
        const last = d.attempts.at(-1);
        printRecord(
          io,
          `Delivery ${d.id}`,
          {
            id: d.id,
            status: d.status,
            events: d.eventTypes.join(','),
            createdAt: new Date(d.createdAt).toISOString(),
            attempts: d.attempts.length,
            lastStatusCode: last?.statusCode ?? null,
            lastError: last?.error ?? null,
          },
          !!options.json,
        );
      }
    });

  webhook
    .command('replay')
    .description('queue new attempts for one delivery, or for every failed one since a time')
    .requiredOption('--org <organizationId>', 'organization id')
    .argument('<webhookId>', 'the endpoint')
    .option('--delivery <deliveryId>', 'the delivery to replay')
    .option('--since <time>', 'every failed delivery created since then (ISO 8601 or Unix seconds)')
    .option('--json', 'print the result as JSON')
    .action(async (webhookId: string, options: { org: string; delivery?: string; since?: string; json?: boolean }) => {
      const since =
        options.since === undefined
          ? Number.NaN
          : /^\d+(\.\d+)?$/.test(options.since)
            ? Number(options.since) * 1000
            : Date.parse(options.since);
      const replayed = await withWebhooks((deps) =>
        replayWebhookDeliveries(deps, operatorOf(options.org), webhookId, options.delivery ? { deliveryId: options.delivery } : { since }),
      );
      printRecord(io, 'Replayed', { webhookId, replayed }, !!options.json);
    });
}
