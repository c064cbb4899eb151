import { audited } from '../audit/audit-recorder.js';
import { auditFields, type AuditFields } from '../audit/audit-types.js';
import type { Principal } from '../auth/principal.js';
import { mayDo } from '../auth/permissions.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, forbidden, invalidField, notFound, validationFailed, type FieldProblem } from '../errors.js';
import { literalHost, refusedAddress, type AddressAllowList } from './address-rules.js';
export type { WebhookServices } from './webhook-types.js';
import { eventJson, newWebhookId } from './outbox-rules.js';
import { newWebhookSecret } from './webhook-signing.js';
import {
  webhookEventTypes,
  type DeliveryStatus,
  type DeliveryWithAttempts,
  type WebhookAttempt,
  type WebhookEndpoint,
  type WebhookEventType,
  type WebhookServices,
} from './webhook-types.js';

export type WebhookDeps = Pick<DomainDeps, 'store' | 'clock' | 'events'> & { webhooks: WebhookServices };

/** An endpoint with its secret in plain text: the answer of creation and rotation only. */
export type EndpointWithSecret = WebhookEndpoint & { secret: string };

export const webhookLimits = {
  batchMaxEvents: { min: 1, max: 1000, default: 1 },
  batchMaxWaitMs: { min: 0, max: 60_000, default: 1000 },
  listLimit: { min: 1, max: 200, default: 50 },
  filterEntries: 1000,
} as const;

/** Webhooks are for Managers and API clients only; to anyone else they do not exist. */
function requireManager(principal: Principal): void {
  if (principal.kind === 'user' && !mayDo(principal.role, 'administer')) throw forbidden();
}

function endpointNotFound(id: string) {
  return notFound(`No webhook ${id}.`);
}

export interface EndpointInput {
  url?: unknown;
  events?: unknown;
  description?: unknown;
  groupIds?: unknown;
  tuids?: unknown;
  tsmIds?: unknown;
  batchMaxEvents?: unknown;
  batchMaxWaitMs?: unknown;
  enabled?: unknown;
}

/** The URL rule: http or https, and no refused literal address (a name is resolved and checked at each attempt). */
export function checkWebhookUrl(value: unknown, allow: AddressAllowList): FieldProblem | undefined {
  if (typeof value !== 'string' || value.length > 2048)
    return fieldProblem('url', 'must be an http or https URL of at most 2048 characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fieldProblem('url', 'must be an absolute http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return fieldProblem('url', 'must use http or https');
  if (url.username !== '' || url.password !== '') return fieldProblem('url', 'must not carry a user name or password');
  const literal = literalHost(url);
  const refused = literal === undefined ? undefined : refusedAddress(literal, allow);
  if (refused) return fieldProblem('url', `address refused: ${literal} is a ${refused} (WEBHOOK_ALLOW_PRIVATE admits LAN receivers)`);
  return undefined;
}

function checkInput(input: EndpointInput, allow: AddressAllowList, creating: boolean): FieldProblem[] {
  const problems: (FieldProblem | undefined)[] = [];
  if (creating || input.url !== undefined) problems.push(checkWebhookUrl(input.url, allow));
  if (creating || input.events !== undefined) {
    const events = input.events;
    if (
      !Array.isArray(events) ||
      events.length === 0 ||
      events.some((e) => typeof e !== 'string' || !(webhookEventTypes as readonly string[]).includes(e))
    )
      problems.push(fieldProblem('events', `must list one or more of ${webhookEventTypes.join(', ')}`));
  }
  if (
    input.description !== undefined &&
    input.description !== null &&
    (typeof input.description !== 'string' || input.description.length > 1024)
  )
    problems.push(fieldProblem('description', 'must be at most 1024 characters'));
  for (const name of ['groupIds', 'tuids'] as const) {
    const list = input[name];
    if (
      list !== undefined &&
      list !== null &&
      (!Array.isArray(list) || list.length > webhookLimits.filterEntries || list.some((v) => typeof v !== 'string' || v === ''))
    )
      problems.push(fieldProblem(name, `must be a list of at most ${webhookLimits.filterEntries} non-empty strings, or null`));
  }
  if (
    input.tsmIds !== undefined &&
    input.tsmIds !== null &&
    (!Array.isArray(input.tsmIds) || input.tsmIds.length > webhookLimits.filterEntries || input.tsmIds.some((v) => !Number.isInteger(v)))
  )
    problems.push(fieldProblem('tsmIds', `must be a list of at most ${webhookLimits.filterEntries} integers, or null`));
  const { batchMaxEvents, batchMaxWaitMs } = webhookLimits;
  if (input.batchMaxEvents !== undefined && !inRange(input.batchMaxEvents, batchMaxEvents))
    problems.push(fieldProblem('batchMaxEvents', `must be an integer from ${batchMaxEvents.min} to ${batchMaxEvents.max}`));
  if (input.batchMaxWaitMs !== undefined && !inRange(input.batchMaxWaitMs, batchMaxWaitMs))
    problems.push(fieldProblem('batchMaxWaitMs', `must be an integer from ${batchMaxWaitMs.min} to ${batchMaxWaitMs.max}`));
  if (input.enabled !== undefined && typeof input.enabled !== 'boolean') problems.push(fieldProblem('enabled', 'must be true or false'));
  return problems.filter((p): p is FieldProblem => p !== undefined);
}

function inRange(value: unknown, range: { min: number; max: number }): boolean {
  return Number.isInteger(value) && (value as number) >= range.min && (value as number) <= range.max;
}

const listOrNull = <T>(value: unknown): T[] | null => (Array.isArray(value) && value.length > 0 ? [...new Set(value as T[])] : null);

/** Creates an endpoint (healthy); answers it with its secret, shown this once. */
export async function createWebhook(deps: WebhookDeps, principal: Principal, input: EndpointInput): Promise<EndpointWithSecret> {
  requireManager(principal);
  const problems = checkInput(input, deps.webhooks.allow, true);
  if (problems.length > 0) throw validationFailed(problems);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const endpoint: WebhookEndpoint = {
    id: newWebhookId('whe'),
    organizationId: principal.organizationId,
    url: input.url as string,
    description: (input.description as string | null | undefined) ?? null,
    events: [...new Set(input.events as WebhookEventType[])],
    groupIds: listOrNull<string>(input.groupIds),
    tuids: listOrNull<string>(input.tuids),
    tsmIds: listOrNull<number>(input.tsmIds),
    batchMaxEvents: (input.batchMaxEvents as number | undefined) ?? webhookLimits.batchMaxEvents.default,
    batchMaxWaitMs: (input.batchMaxWaitMs as number | undefined) ?? webhookLimits.batchMaxWaitMs.default,
    enabled: (input.enabled as boolean | undefined) ?? true,
    sealedSecret: deps.webhooks.seal(secret),
    sealedPreviousSecret: null,
    previousSecretUntil: null,
    health: { state: 'healthy', failingSince: null, lastError: null, lastSuccessAt: null },
    createdAt: now,
    updatedAt: now,
  };
  await audited(deps, principal, webhookOperation(endpoint, 'webhook.create'), async () => {
    await deps.store.webhooks.createEndpoint(endpoint);
    return { result: undefined, after: auditedEndpoint(endpoint) };
  });
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
  return { ...endpoint, secret };
}

export async function listWebhooks(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<WebhookEndpoint[]> {
  requireManager(principal);
  return deps.store.webhooks.listEndpoints(principal.organizationId);
}

export async function getWebhook(deps: Pick<DomainDeps, 'store'>, principal: Principal, id: string): Promise<WebhookEndpoint> {
  requireManager(principal);
  const endpoint = await deps.store.webhooks.getEndpoint(principal.organizationId, id);
  if (!endpoint) throw endpointNotFound(id);
  return endpoint;
}

/** Changes any field; `enabled: true` re-enables a disabled endpoint (healthy again, its waiting deliveries due now). */
export async function updateWebhook(deps: WebhookDeps, principal: Principal, id: string, input: EndpointInput): Promise<WebhookEndpoint> {
  const current = await getWebhook(deps, principal, id);
  const problems = checkInput(input, deps.webhooks.allow, false);
  if (problems.length > 0) throw validationFailed(problems);
  const now = deps.clock.now();
  const reenabled = input.enabled === true && !current.enabled;
  const disabled = input.enabled === false && current.enabled;
  const change = () =>
    deps.store.webhooks.updateEndpoint(
      principal.organizationId,
      id,
      {
        ...(input.url !== undefined && { url: input.url as string }),
        ...(input.description !== undefined && { description: input.description as string | null }),
        ...(input.events !== undefined && { events: [...new Set(input.events as WebhookEventType[])] }),
        ...(input.groupIds !== undefined && { groupIds: listOrNull<string>(input.groupIds) }),
        ...(input.tuids !== undefined && { tuids: listOrNull<string>(input.tuids) }),
        ...(input.tsmIds !== undefined && { tsmIds: listOrNull<number>(input.tsmIds) }),
        ...(input.batchMaxEvents !== undefined && { batchMaxEvents: input.batchMaxEvents as number }),
        ...(input.batchMaxWaitMs !== undefined && { batchMaxWaitMs: input.batchMaxWaitMs as number }),
        ...(input.enabled !== undefined && { enabled: input.enabled as boolean }),
        ...(reenabled && { health: { ...current.health, state: 'healthy' as const, failingSince: null } }),
        ...(disabled && { health: { ...current.health, state: 'disabled' as const } }),
      },
      now,
    );
  const updated = await audited(deps, principal, webhookOperation(current, 'webhook.update'), async () => {
    const updated = await change();
    if (!updated) throw endpointNotFound(id);
    if (reenabled) await deps.store.webhooks.releaseWaiting(id, now);
    return { result: updated, before: auditedEndpoint(current), after: auditedEndpoint(updated) };
  });
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
  return updated;
}

/** Deletes an endpoint; its pending deliveries are dropped (and logged as such). */
export async function deleteWebhook(deps: WebhookDeps, principal: Principal, id: string): Promise<void> {
  const current = await getWebhook(deps, principal, id);
  const dropped = await audited(deps, principal, webhookOperation(current, 'webhook.delete'), async () => {
    const dropped = await deps.store.webhooks.deleteEndpoint(principal.organizationId, id);
    if (dropped === undefined) throw endpointNotFound(id);
    return { result: dropped, before: auditedEndpoint(current), details: auditFields({ droppedPending: dropped }) };
  });
  deps.webhooks.log?.(
    { webhookId: id, organizationId: principal.organizationId, droppedPending: dropped },
    'webhook endpoint deleted, its pending deliveries dropped',
  );
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
}

/** A new secret; the old one keeps signing beside it for WEBHOOK_SECRET_OVERLAP_S. */
export async function rotateWebhookSecret(deps: WebhookDeps, principal: Principal, id: string): Promise<EndpointWithSecret> {
  const current = await getWebhook(deps, principal, id);
  const now = deps.clock.now();
  const secret = newWebhookSecret();
  const previousSecretUntil = now + deps.webhooks.secretOverlapS * 1000;
  const updated = await audited(deps, principal, webhookOperation(current, 'webhook.rotate_secret'), async () => {
    const updated = await deps.store.webhooks.updateEndpoint(
      principal.organizationId,
      id,
      { sealedSecret: deps.webhooks.seal(secret), sealedPreviousSecret: current.sealedSecret, previousSecretUntil },
      now,
    );
    if (!updated) throw endpointNotFound(id);
    // The secret itself is never recorded: only until when the previous one still signs.
    return { result: updated, details: auditFields({ overlapEndsAt: new Date(previousSecretUntil).toISOString() }) };
  });
  deps.events.emit('webhooksChanged', { organizationId: principal.organizationId });
  return { ...updated, secret };
}

/** Sends a `webhook.test` event now and answers that attempt. */
export async function testWebhook(deps: WebhookDeps, principal: Principal, id: string): Promise<WebhookAttempt> {
  const endpoint = await getWebhook(deps, principal, id);
  const now = deps.clock.now();
  const event = eventJson(newWebhookId('evt'), 'webhook.test', now, JSON.stringify({ webhook_id: id }));
  const row = {
    id: newWebhookId('whd'),
    organizationId: endpoint.organizationId,
    endpointId: id,
    eventTypes: JSON.stringify(['webhook.test']),
    events: `[${event}]`,
    eventCount: 1,
    // Never due for the dispatcher: it is sent below, once.
    nextAttemptAt: Number.MAX_SAFE_INTEGER,
    createdAt: now,
  };
  await audited(deps, principal, webhookOperation(endpoint, 'webhook.test'), async () => {
    await deps.store.webhooks.insertDeliveries([row]);
    return { result: undefined, details: auditFields({ deliveryId: row.id }) };
  });
  return deps.webhooks.sendNow(endpoint, {
    ...row,
    eventTypes: ['webhook.test'],
    status: 'pending',
    attemptCount: 0,
    updatedAt: now,
  });
}

const deliveryStatuses: readonly DeliveryStatus[] = ['pending', 'succeeded', 'failed'];

/** The delivery log of an endpoint, newest first, with every attempt; `cursor` from the previous page's `nextCursor`. */
export async function listWebhookDeliveries(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  id: string,
  input: { status?: string; limit?: number; cursor?: string },
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }> {
  await getWebhook(deps, principal, id);
  return deliveryLogPage(deps, id, input);
}

/**
 * A page of one target's delivery log (a webhook endpoint's or a notification channel's), newest first, after the
 * caller has checked the target is the principal's: the limit checked, the cursor read and the next one made.
 */
export async function deliveryLogPage(
  deps: Pick<DomainDeps, 'store'>,
  targetId: string,
  input: { status?: string; limit?: number; cursor?: string },
): Promise<{ deliveries: DeliveryWithAttempts[]; nextCursor: string | null }> {
  const { listLimit } = webhookLimits;
  const limit = input.limit ?? listLimit.default;
  if (!inRange(limit, listLimit)) throw invalidField('limit', `limit must be an integer from ${listLimit.min} to ${listLimit.max}`);
  if (input.status !== undefined && !deliveryStatuses.includes(input.status as DeliveryStatus))
    throw invalidField('status', 'status must be pending, succeeded or failed');
  let after: { createdAt: number; id: string } | undefined;
  if (input.cursor !== undefined) {
    const [createdAt, deliveryId] = Buffer.from(input.cursor, 'base64url').toString('utf8').split('|');
    if (!createdAt || !deliveryId || !Number.isFinite(Number(createdAt))) throw invalidField('cursor', 'cursor is not one this API gave');
    after = { createdAt: Number(createdAt), id: deliveryId };
  }
  const deliveries = await deps.store.webhooks.listDeliveries(targetId, {
    status: input.status as DeliveryStatus | undefined,
    limit,
    after,
  });
  const last = deliveries.at(-1);
  const nextCursor = deliveries.length === limit && last ? Buffer.from(`${last.createdAt}|${last.id}`).toString('base64url') : null;
  return { deliveries, nextCursor };
}

/** Queues new attempts for one delivery (the same id, so the same `webhook-id`), or every failed one created since `since` (ms). */
export async function replayWebhookDeliveries(
  deps: WebhookDeps,
  principal: Principal,
  id: string,
  which: { deliveryId: string } | { since: number },
): Promise<number> {
  const endpoint = await getWebhook(deps, principal, id);
  const now = deps.clock.now();
  if ('deliveryId' in which) {
    const delivery = await deps.store.webhooks.getDelivery(id, which.deliveryId);
    if (!delivery) throw notFound(`No delivery ${which.deliveryId} of webhook ${id}.`);
  } else if (!Number.isFinite(which.since)) throw invalidField('since', 'since must be a time');
  const selection = 'deliveryId' in which ? { id: which.deliveryId } : { since: which.since };
  return audited(deps, principal, webhookOperation(endpoint, 'webhook.replay'), async () => {
    const queued = await deps.store.webhooks.replay(id, selection, now);
    const details =
      'deliveryId' in which
        ? auditFields({ deliveryId: which.deliveryId, queued })
        : auditFields({ since: new Date(which.since).toISOString(), queued });
    return { result: queued, details };
  });
}

function webhookOperation(endpoint: Pick<WebhookEndpoint, 'id' | 'organizationId'>, action: string) {
  return { organizationId: endpoint.organizationId, action, target: { type: 'webhook', id: endpoint.id } };
}

/** What the audit log keeps of an endpoint: its settings, never its secrets (sealed or not). */
function auditedEndpoint(endpoint: WebhookEndpoint): AuditFields {
  return auditFields({
    url: endpoint.url,
    description: endpoint.description,
    events: endpoint.events.join(','),
    groupIds: endpoint.groupIds?.join(',') ?? null,
    tuids: endpoint.tuids?.join(',') ?? null,
    tsmIds: endpoint.tsmIds?.join(',') ?? null,
    batchMaxEvents: endpoint.batchMaxEvents,
    batchMaxWaitMs: endpoint.batchMaxWaitMs,
    enabled: endpoint.enabled,
  });
}
