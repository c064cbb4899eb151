import { Type, type Static } from '@sinclair/typebox';
import {
  createWebhook,
  deleteWebhook,
  getWebhook,
  listWebhookDeliveries,
  listWebhooks,
  replayWebhookDeliveries,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  webhookLimits,
  type EndpointInput,
  type WebhookDeps,
} from '../../../domain/webhooks/webhook-service.js';
import {
  webhookEventTypes,
  type DeliveryWithAttempts,
  type WebhookAttempt,
  type WebhookEndpoint,
} from '../../../domain/webhooks/webhook-types.js';
import { serviceUnavailable } from '../../../domain/errors.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { UnixSeconds, dataOf, errors } from '../schemas.js';

const EventType = Type.Union(
  webhookEventTypes.map((t) => Type.Literal(t)),
  { description: 'An event type a webhook may ask for' },
);
const NullableStrings = Type.Union([Type.Array(Type.String({ minLength: 1 }), { maxItems: webhookLimits.filterEntries }), Type.Null()]);
const fields = {
  url: Type.String({ maxLength: 2048, description: 'http or https; a literal refused address (loopback, private, ...) is refused' }),
  events: Type.Array(EventType, { minItems: 1, maxItems: 10 }),
  description: Type.Union([Type.String({ maxLength: 1024 }), Type.Null()]),
  group_ids: { ...NullableStrings, description: 'Only events of things in these groups (`unassigned`: in none); null: any' },
  tuids: { ...NullableStrings, description: 'Only events of these things; null: any' },
  tsm_ids: Type.Union([Type.Array(Type.Integer(), { maxItems: webhookLimits.filterEntries }), Type.Null()], {
    description: '`message.stored` of these message ids only; null: any',
  }),
  batch_max_events: Type.Integer({ minimum: 1, maximum: 1000, description: 'Events per POST; over 1 every POST is a batch' }),
  batch_max_wait_ms: Type.Integer({ minimum: 0, maximum: 60_000, description: 'How long a partial batch waits for more events' }),
  enabled: Type.Boolean(),
};
const CreateBody = Type.Object(
  {
    url: fields.url,
    events: fields.events,
    description: Type.Optional(fields.description),
    group_ids: Type.Optional(fields.group_ids),
    tuids: Type.Optional(fields.tuids),
    tsm_ids: Type.Optional(fields.tsm_ids),
    batch_max_events: Type.Optional(fields.batch_max_events),
    batch_max_wait_ms: Type.Optional(fields.batch_max_wait_ms),
    enabled: Type.Optional(fields.enabled),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(CreateBody, { additionalProperties: false });
const Health = Type.Object({
  state: Type.Union([Type.Literal('healthy'), Type.Literal('failing'), Type.Literal('disabled')]),
  failing_since: Type.Union([UnixSeconds, Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  last_success_at: Type.Union([UnixSeconds, Type.Null()]),
});
const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  description: fields.description,
  group_ids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  tuids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  tsm_ids: Type.Union([Type.Array(Type.Integer()), Type.Null()]),
  batch_max_events: Type.Integer(),
  batch_max_wait_ms: Type.Integer(),
  enabled: Type.Boolean(),
  health: Health,
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
const WebhookWithSecret = Type.Composite([
  Webhook,
  Type.Object({ secret: Type.String({ description: '`whsec_` + base64; shown at creation and rotation only' }) }),
]);
export const Attempt = Type.Object({
  at: UnixSeconds,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  duration_ms: Type.Number(),
  error: Type.Union([Type.String(), Type.Null()]),
  response_excerpt: Type.Union([Type.String(), Type.Null()], { description: 'At most 4 KB of the response body' }),
});
export const Delivery = Type.Object({
  id: Type.String({ description: 'The `webhook-id` of every attempt of this delivery' }),
  event_types: Type.Array(Type.String()),
  event_count: Type.Integer(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')]),
  created_at: UnixSeconds,
  next_attempt_at: Type.Union([UnixSeconds, Type.Null()], { description: 'When a pending delivery is tried next' }),
  attempts: Type.Array(Attempt),
});
const IdParams = Type.Object({ id: Type.String() });
const DeliveryParams = Type.Object({ id: Type.String(), deliveryId: Type.String() });
const DeliveriesQuery = Type.Object({
  status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')])),
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: webhookLimits.listLimit.max, description: `default ${webhookLimits.listLimit.default}` }),
  ),
  cursor: Type.Optional(Type.String()),
});
const ReplayBody = Type.Object({ since: UnixSeconds }, { additionalProperties: false });
const Replayed = Type.Object({ replayed: Type.Integer({ description: 'Deliveries queued for new attempts' }) });

// The domain's names as these routes name them.
const fieldNames = {
  groupIds: 'group_ids',
  tsmIds: 'tsm_ids',
  batchMaxEvents: 'batch_max_events',
  batchMaxWaitMs: 'batch_max_wait_ms',
} as const;

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

export function presentWebhook(e: WebhookEndpoint): Static<typeof Webhook> {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    group_ids: e.groupIds,
    tuids: e.tuids,
    tsm_ids: e.tsmIds,
    batch_max_events: e.batchMaxEvents,
    batch_max_wait_ms: e.batchMaxWaitMs,
    enabled: e.enabled,
    health: {
      state: e.enabled ? e.health.state : 'disabled',
      failing_since: seconds(e.health.failingSince),
      last_error: e.health.lastError,
      last_success_at: seconds(e.health.lastSuccessAt),
    },
    created_at: e.createdAt / 1000,
    updated_at: e.updatedAt / 1000,
  };
}

export function presentAttempt(a: WebhookAttempt): Static<typeof Attempt> {
  return {
    at: a.at / 1000,
    status_code: a.statusCode,
    duration_ms: Math.round(a.durationMs),
    error: a.error,
    response_excerpt: a.responseExcerpt,
  };
}

export function presentDelivery(d: DeliveryWithAttempts): Static<typeof Delivery> {
  return {
    id: d.id,
    event_types: d.eventTypes,
    event_count: d.eventCount,
    status: d.status,
    created_at: d.createdAt / 1000,
    next_attempt_at: d.status === 'pending' && d.nextAttemptAt < Number.MAX_SAFE_INTEGER ? d.nextAttemptAt / 1000 : null,
    attempts: d.attempts.map(presentAttempt),
  };
}

function inputOf(body: Partial<Static<typeof CreateBody>>): EndpointInput {
  return {
    url: body.url,
    events: body.events,
    description: body.description,
    groupIds: body.group_ids,
    tuids: body.tuids,
    tsmIds: body.tsm_ids,
    batchMaxEvents: body.batch_max_events,
    batchMaxWaitMs: body.batch_max_wait_ms,
    enabled: body.enabled,
  };
}

/** Webhooks (SPEC section 11): endpoints, secret rotation, the test event, the delivery log and replay. */
export function registerWebhookRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['webhooks'];
  const webhookDeps = (): WebhookDeps => {
    if (!deps.webhooks) throw serviceUnavailable('Webhooks are not available here.');
    return { ...deps, webhooks: deps.webhooks };
  };

  app.post(
    '/webhooks',
    {
      config: { fieldNames },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Create a webhook endpoint; the answer shows its signing secret, this once',
        body: CreateBody,
        response: { 200: dataOf(WebhookWithSecret), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => {
      const created = await createWebhook(webhookDeps(), request.client, inputOf(request.body));
      return { data: { ...presentWebhook(created), secret: created.secret } };
    },
  );

  app.get(
    '/webhooks',
    {
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: 'List the webhook endpoints with their health',
        response: { 200: dataOf(Type.Array(Webhook)), ...errors(401, 403, 429) },
      },
    },
    async (request) => ({ data: (await listWebhooks(deps, request.client)).map(presentWebhook) }),
  );

  app.get(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'Read a webhook endpoint',
        params: IdParams,
        response: { 200: dataOf(Webhook), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ data: presentWebhook(await getWebhook(deps, request.client, request.params.id)) }),
  );

  app.patch(
    '/webhooks/:id',
    {
      config: { fieldNames },
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change a webhook endpoint; `enabled: true` re-enables a disabled one and sends what waited',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataOf(Webhook), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      data: presentWebhook(await updateWebhook(webhookDeps(), request.client, request.params.id, inputOf(request.body))),
    }),
  );

  app.delete(
    '/webhooks/:id',
    {
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook endpoint; its pending deliveries are dropped',
        params: IdParams,
        response: { 200: dataOf(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      await deleteWebhook(webhookDeps(), request.client, request.params.id);
      return { data: { id: request.params.id, deleted: true } };
    },
  );

  app.post(
    '/webhooks/:id/rotate-secret',
    {
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new signing secret; the old one signs too for WEBHOOK_SECRET_OVERLAP_S',
        params: IdParams,
        response: { 200: dataOf(WebhookWithSecret), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const rotated = await rotateWebhookSecret(webhookDeps(), request.client, request.params.id);
      return { data: { ...presentWebhook(rotated), secret: rotated.secret } };
    },
  );

  app.post(
    '/webhooks/:id/test',
    {
      schema: {
        operationId: 'testWebhook',
        tags,
        summary: 'Send a `webhook.test` event now and answer that attempt',
        params: IdParams,
        response: { 200: dataOf(Attempt), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({ data: presentAttempt(await testWebhook(webhookDeps(), request.client, request.params.id)) }),
  );

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: 'The delivery log of an endpoint, newest first, with every attempt',
        params: IdParams,
        querystring: DeliveriesQuery,
        response: {
          200: Type.Object({ data: Type.Array(Delivery), next_cursor: Type.Union([Type.String(), Type.Null()]) }),
          ...errors(400, 401, 403, 404, 429),
        },
      },
    },
    async (request) => {
      const { deliveries, nextCursor } = await listWebhookDeliveries(deps, request.client, request.params.id, request.query);
      return { data: deliveries.map(presentDelivery), next_cursor: nextCursor };
    },
  );

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/replay',
    {
      schema: {
        operationId: 'replayWebhookDelivery',
        tags,
        summary: 'Queue new attempts for one delivery (same webhook-id)',
        params: DeliveryParams,
        response: { 200: dataOf(Replayed), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      const { id, deliveryId } = request.params;
      return { data: { replayed: await replayWebhookDeliveries(webhookDeps(), request.client, id, { deliveryId }) } };
    },
  );

  app.post(
    '/webhooks/:id/replay',
    {
      schema: {
        operationId: 'replayWebhookDeliveries',
        tags,
        summary: 'Queue new attempts for every failed delivery created since `since` (Unix seconds)',
        params: IdParams,
        body: ReplayBody,
        response: { 200: dataOf(Replayed), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => ({
      data: {
        replayed: await replayWebhookDeliveries(webhookDeps(), request.client, request.params.id, { since: request.body.since * 1000 }),
      },
    }),
  );
}
