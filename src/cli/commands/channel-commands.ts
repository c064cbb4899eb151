import type { Command } from 'commander';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import {
  createChannel,
  deleteChannel,
  listChannels,
  testChannel,
  updateChannel,
  type ChannelDeps,
} from '../../domain/channels/channel-service.js';
import { shownChatUrl } from '../../domain/channels/chat-url-shown.js';
import { serviceUnavailable } from '../../domain/errors.js';
import { DomainEventBus } from '../../domain/events.js';
import { allowListOf } from '../../domain/webhooks/address-rules.js';
import { withChannelTestSender } from '../channel-test-sender.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** The operator at the command line acts for the organization as its API clients do. */
function operatorOf(organizationId: string): ClientPrincipal {
  return { kind: 'client', organizationId, clientId: 'cli', responsible: 'cli' };
}

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');

/**
 * `thingdesk channel create|list|update|delete|test --org ...` (SPEC section 13). They work on the store; a running
 * platform reads a channel change within 30 s (its channel view's refresh). `test` sends from the command itself
 * (SMTP_URL, SMTP_FROM and the webhook settings of its environment) and logs the attempt in the channel's deliveries.
 */
export function registerChannelCommands(program: Command, io: CliIo): void {
  const channel = program.command('channel').description("manage an organization's notification channels");
  const names = { fields: { name: '--name', type: '--type', to: '--to', url: '--url' }, hints: { NOT_FOUND: 'the channel id' } };
  const withChannels = <T>(work: (deps: ChannelDeps) => Promise<T>, sendNow?: boolean) =>
    withStore(
      io,
      (deps, config) => {
        const channelDeps = (send: NonNullable<ChannelDeps['webhooks']>['sendNow']): ChannelDeps => ({
          ...deps,
          events: new DomainEventBus(() => undefined),
          webhooks: {
            seal: () => {
              throw serviceUnavailable('not used by channels');
            },
            allow: allowListOf(config.webhookAllowPrivate),
            secretOverlapS: config.webhookSecretOverlapS,
            sendNow: send,
          },
        });
        if (sendNow) return withChannelTestSender(config, deps, (send) => work(channelDeps(send)));
        return work(channelDeps(() => Promise.reject(serviceUnavailable('not used here'))));
      },
      names,
    );

  channel
    .command('create')
    .description('create an e-mail or chat channel')
    .requiredOption('--org <organizationId>', 'organization id')
    .requiredOption('--name <name>', '1 to 100 characters')
    .requiredOption('--type <type>', 'email or chat')
    .option('--to <addresses>', 'e-mail: the recipients (comma-separated)')
    .option('--url <url>', 'chat: a Slack-compatible incoming webhook')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; name: string; type: string; to?: string; url?: string; json?: boolean }) => {
      const created = await withChannels((deps) =>
        createChannel(deps, operatorOf(options.org), { name: options.name, type: options.type, to: list(options.to), url: options.url }),
      );
      printRecord(io, 'Created notification channel', { id: created.id, name: created.name, type: created.type }, !!options.json);
    });

  channel
    .command('list')
    .description("list an organization's notification channels")
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--json', 'print the result as JSON lines')
    .action(async (options: { org: string; json?: boolean }) => {
      const channels = await withStore(io, (deps) => listChannels(deps, operatorOf(options.org)), names);
      for (const c of channels)
        printRecord(
          io,
          `Notification channel ${c.id}`,
          { id: c.id, name: c.name, type: c.type, to: c.to?.join(',') ?? null, url: shownChatUrl(c.url) },
          !!options.json,
        );
    });

  channel
    .command('update')
    .description("change a channel's name, recipients or URL (not its type)")
    .argument('<channelId>', 'the channel id')
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--name <name>', '1 to 100 characters')
    .option('--to <addresses>', 'e-mail: the recipients (comma-separated)')
    .option('--url <url>', 'chat: a Slack-compatible incoming webhook')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { org: string; name?: string; to?: string; url?: string; json?: boolean }) => {
      const updated = await withChannels((deps) =>
        updateChannel(deps, operatorOf(options.org), id, { name: options.name, to: list(options.to), url: options.url }),
      );
      printRecord(
        io,
        'Updated notification channel',
        { id: updated.id, name: updated.name, type: updated.type, to: updated.to?.join(',') ?? null, url: shownChatUrl(updated.url) },
        !!options.json,
      );
    });

  channel
    .command('test')
    .description("send a test notification now (logged in the channel's deliveries) and print the attempt")
    .argument('<channelId>', 'the channel id')
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, options: { org: string; json?: boolean }) => {
      const attempt = await withChannels((deps) => testChannel(deps, operatorOf(options.org), id), true);
      printRecord(
        io,
        attempt.error === null ? 'Test notification sent' : 'Test notification failed',
        { channelId: id, statusCode: attempt.statusCode, error: attempt.error, response: attempt.responseExcerpt },
        !!options.json,
      );
      // Exit 1 once the attempt is printed (the CLI's error path prints this line).
      if (attempt.error !== null) throw new Error(`the test notification failed: ${attempt.error}`);
    });

  channel
    .command('delete')
    .description('delete a notification channel; its waiting notifications are dropped')
    .requiredOption('--org <organizationId>', 'organization id')
    .requiredOption('--id <channelId>', 'the channel id')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; id: string; json?: boolean }) => {
      await withChannels((deps) => deleteChannel(deps, operatorOf(options.org), options.id));
      printRecord(io, 'Deleted notification channel', { id: options.id }, !!options.json);
    });
}
