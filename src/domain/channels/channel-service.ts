import { randomUUID } from 'node:crypto';
import { alertTypes } from '../alerts/alert-types.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields, type AuditFields } from '../audit/audit-types.js';
import { mayDo } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, forbidden, notFound, validationFailed, type FieldProblem } from '../errors.js';
import { newWebhookId } from '../webhooks/outbox-rules.js';
import { checkWebhookUrl, deliveryLogPage } from '../webhooks/webhook-service.js';
import type { DeliveryWithAttempts, WebhookAttempt } from '../webhooks/webhook-types.js';
import { testMessage } from './channel-messages.js';
import type { AlertChannels, ChannelInput, ChannelType, NotificationChannel } from './channel-types.js';
import { checkChannelInput } from './channel-validation.js';
import { channelEndpoint } from './channel-view.js';

export type ChannelDeps = Pick<DomainDeps, 'store' | 'clock' | 'events' | 'webhooks'>;

/**
 * Notification channels (SPEC section 13). They hold recipients' addresses and chat URLs (a Slack incoming webhook's
 * URL is its secret), so only Managers and API clients read or change them; every change is audited and announced
 * (`webhooksChanged`: the endpoint and channel views reload on every instance).
 */

const mayManageChannels = (principal: Principal) => principal.kind !== 'user' || mayDo(principal.role, 'administer');

function requireManager(principal: Principal): void {
  if (!mayManageChannels(principal)) throw forbidden('Only Managers may see or change notification channels.');
}

const channelNotFound = (id: string) => notFound(`No notification channel ${id}.`);

function requireServices(deps: ChannelDeps): NonNullable<ChannelDeps['webhooks']> {
  if (!deps.webhooks) throw new Error('notification channels need the running platform (address rules, dispatcher)');
  return deps.webhooks;
}

function checkOrThrow(deps: ChannelDeps, input: ChannelInput, type: ChannelType | undefined, creating: boolean): void {
  const allow = requireServices(deps).allow;
  const problems = checkChannelInput(input, type, creating, (url) => {
    const problem = checkWebhookUrl(url, allow);
    return problem && (problem as FieldProblem & { rule?: string }).rule;
  });
  if (problems.length > 0) throw validationFailed(problems);
}

export async function createChannel(deps: ChannelDeps, principal: Principal, input: ChannelInput): Promise<NotificationChannel> {
  requireManager(principal);
  const type = input.type === 'email' || input.type === 'chat' ? input.type : undefined;
  checkOrThrow(deps, input, type, true);
  const now = deps.clock.now();
  const channel: NotificationChannel = {
    id: `nch_${randomUUID().replaceAll('-', '')}`,
    organizationId: principal.organizationId,
    name: (input.name as string).trim(),
    type: type!,
    to: type === 'email' ? (input.to as string[]) : null,
    url: type === 'chat' ? (input.url as string) : null,
    createdAt: now,
    updatedAt: now,
  };
  await audited(deps, principal, channelOperation(channel, 'channel.create'), async () => {
    await deps.store.channels.create(channel);
    return { result: undefined, after: auditedChannel(channel) };
  });
  deps.events.emit('webhooksChanged', { organizationId: channel.organizationId });
  return channel;
}

export async function listChannels(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<NotificationChannel[]> {
  requireManager(principal);
  return deps.store.channels.list(principal.organizationId);
}

export async function getChannel(deps: Pick<DomainDeps, 'store'>, principal: Principal, id: string): Promise<NotificationChannel> {
  requireManager(principal);
  const channel = await deps.store.channels.get(principal.organizationId, id);
  if (!channel) throw channelNotFound(id);
  return channel;
}

/** Changes name, recipients or URL; the type stays. */
export async function updateChannel(
  deps: ChannelDeps,
  principal: Principal,
  id: string,
  input: ChannelInput,
): Promise<NotificationChannel> {
  const current = await getChannel(deps, principal, id);
  if (input.type !== undefined && input.type !== current.type)
    throw validationFailed([fieldProblem('type', 'cannot change: create a new channel instead')]);
  checkOrThrow(deps, input, current.type, false);
  const updated: NotificationChannel = {
    ...current,
    ...(input.name !== undefined && { name: (input.name as string).trim() }),
    ...(input.to !== undefined && { to: input.to as string[] }),
    ...(input.url !== undefined && { url: input.url as string }),
    updatedAt: deps.clock.now(),
  };
  await audited(deps, principal, channelOperation(current, 'channel.update'), async () => {
    if (!(await deps.store.channels.update(updated))) throw channelNotFound(id);
    return { result: undefined, before: auditedChannel(current), after: auditedChannel(updated) };
  });
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
  return updated;
}

/** Its waiting notifications are dropped; rules that list it simply no longer reach it. */
export async function deleteChannel(deps: ChannelDeps, principal: Principal, id: string): Promise<void> {
  const current = await getChannel(deps, principal, id);
  await audited(deps, principal, channelOperation(current, 'channel.delete'), async () => {
    if (!(await deps.store.channels.delete(principal.organizationId, id))) throw channelNotFound(id);
    return { result: undefined, before: auditedChannel(current) };
  });
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
}

/** Sends a test notification now, once, logged in the channel's deliveries; answers the attempt. */
export async function testChannel(deps: ChannelDeps, principal: Principal, id: string): Promise<WebhookAttempt> {
  const channel = await getChannel(deps, principal, id);
  const services = requireServices(deps);
  const now = deps.clock.now();
  const row = {
    id: newWebhookId('whd'),
    organizationId: channel.organizationId,
    endpointId: id,
    eventTypes: JSON.stringify(['channel.test']),
    events: JSON.stringify([testMessage(channel.name)]),
    eventCount: 1,
    // Never due for the dispatcher: it is sent below, once.
    nextAttemptAt: Number.MAX_SAFE_INTEGER,
    createdAt: now,
  };
  await audited(deps, principal, channelOperation(channel, 'channel.test'), async () => {
    await deps.store.webhooks.insertDeliveries([row]);
    return { result: undefined, details: auditFields({ deliveryId: row.id }) };
  });
  return services.sendNow(channelEndpoint(channel), {
    ...row,
    eventTypes: ['channel.test'],
    status: 'pending',
    attemptCount: 0,
    updatedAt: now,
  });
}

/** The channel's delivery log, newest first, with every attempt. */
export async function listChannelDeliveries(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  id: string,
  input: { limit?: number; cursor?: string },
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }> {
  await getChannel(deps, principal, id);
  return deliveryLogPage(deps, id, { limit: input.limit, cursor: input.cursor });
}

/**
 * The problems of a list of channel ids given as `field`: each must be a channel of the organization (another
 * organization's id is refused like one that does not exist).
 */
export async function checkChannelIds(
  deps: Pick<DomainDeps, 'store'>,
  organizationId: string,
  field: string,
  ids: readonly string[],
): Promise<FieldProblem[]> {
  if (ids.length === 0) return [];
  const known = await deps.store.channels.existing(organizationId, ids);
  const unknown = ids.filter((id) => !known.has(id));
  return unknown.length === 0 ? [] : [fieldProblem(field, `names no notification channel of this organization: ${unknown.join(', ')}`)];
}

/** The channels the built-in alerts notify; undefined for a role that may not see channels. */
export async function getAlertChannels(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<AlertChannels | undefined> {
  if (!mayManageChannels(principal)) return undefined;
  return deps.store.channels.alertChannels(principal.organizationId);
}

/** Sets the channels of the built-in alert types given (`{"battery low": [ids]}`); the others stay. */
export async function setAlertChannels(deps: ChannelDeps, principal: Principal, input: unknown): Promise<AlertChannels> {
  requireManager(principal);
  if (typeof input !== 'object' || input === null || Array.isArray(input))
    throw validationFailed([fieldProblem('alertChannels', 'must be an object of built-in alert types to lists of channel ids')]);
  const problems: FieldProblem[] = [];
  for (const [type, ids] of Object.entries(input)) {
    if (!(alertTypes as readonly string[]).includes(type))
      problems.push(fieldProblem(`alertChannels.${type}`, `is not a built-in alert type (${alertTypes.join(', ')})`));
    else if (!Array.isArray(ids) || ids.length > 20 || ids.some((id) => typeof id !== 'string'))
      problems.push(fieldProblem(`alertChannels.${type}`, 'must be a list of at most 20 channel ids'));
    else problems.push(...(await checkChannelIds(deps, principal.organizationId, `alertChannels.${type}`, ids as string[])));
  }
  if (problems.length > 0) throw validationFailed(problems);
  const current = await deps.store.channels.alertChannels(principal.organizationId);
  const next: AlertChannels = { ...current, ...(input as AlertChannels) };
  await audited(
    deps,
    principal,
    {
      organizationId: principal.organizationId,
      action: 'organization.alert_channels',
      target: { type: 'organization', id: principal.organizationId },
    },
    async () => {
      await deps.store.channels.setAlertChannels(principal.organizationId, next);
      return { result: undefined, before: auditFields(flat(current)), after: auditFields(flat(next)) };
    },
  );
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
  return next;
}

function flat(channels: AlertChannels): Record<string, string> {
  return Object.fromEntries(Object.entries(channels).map(([type, ids]) => [type, ids.join(',')]));
}

function channelOperation(channel: Pick<NotificationChannel, 'id' | 'organizationId'>, action: string) {
  return { organizationId: channel.organizationId, action, target: { type: 'channel', id: channel.id } };
}

/** What the audit log keeps of a channel: not its chat URL (a Slack webhook URL is a secret), only its host. */
function auditedChannel(channel: NotificationChannel): AuditFields {
  return auditFields({
    name: channel.name,
    type: channel.type,
    to: channel.to?.join(',') ?? null,
    urlHost: channel.url === null ? null : safeHost(channel.url),
  });
}

function safeHost(url: string): string | null {
  try {
    return new URL(url).host;
  } catch {
    return null;
  }
}
