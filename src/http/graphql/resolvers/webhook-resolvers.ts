import { serviceUnavailable } from '../../../domain/errors.js';
import {
  createWebhook,
  deleteWebhook,
  listWebhookDeliveries,
  listWebhooks,
  replayWebhookDeliveries,
  rotateWebhookSecret,
  testWebhook,
  updateWebhook,
  type EndpointInput,
  type WebhookDeps,
} from '../../../domain/webhooks/webhook-service.js';
import type { DeliveryWithAttempts, WebhookAttempt, WebhookEndpoint } from '../../../domain/webhooks/webhook-types.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

const seconds = (ms: number | null) => (ms === null ? null : ms / 1000);

function presentWebhook(e: WebhookEndpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    groupIds: e.groupIds,
    tuids: e.tuids,
    tsmIds: e.tsmIds,
    batchMaxEvents: e.batchMaxEvents,
    batchMaxWaitMs: e.batchMaxWaitMs,
    enabled: e.enabled,
    health: {
      state: e.enabled ? e.health.state : 'disabled',
      failingSince: seconds(e.health.failingSince),
      lastError: e.health.lastError,
      lastSuccessAt: seconds(e.health.lastSuccessAt),
    },
    createdAt: e.createdAt / 1000,
  };
}

export function presentAttempt(a: WebhookAttempt) {
  return {
    at: a.at / 1000,
    statusCode: a.statusCode,
    durationMs: Math.round(a.durationMs),
    error: a.error,
    responseExcerpt: a.responseExcerpt,
  };
}

export function presentDelivery(d: DeliveryWithAttempts) {
  return {
    id: d.id,
    eventTypes: d.eventTypes,
    eventCount: d.eventCount,
    status: d.status,
    createdAt: d.createdAt / 1000,
    nextAttemptAt: d.status === 'pending' && d.nextAttemptAt < Number.MAX_SAFE_INTEGER ? d.nextAttemptAt / 1000 : null,
    attempts: d.attempts.map(presentAttempt),
  };
}

function webhookDeps(context: GraphqlContext): WebhookDeps {
  const { webhooks } = context.deps;
  if (!webhooks) throw serviceUnavailable('Webhooks are not available here.');
  return { ...context.deps, webhooks };
}

type InputArgs = { [K in keyof EndpointInput]?: EndpointInput[K] | null };

/** GraphQL's nulls are "not given" here, as REST's absent fields. */
function inputOf(input: InputArgs): EndpointInput {
  return Object.fromEntries(Object.entries(input).filter(([, value]) => value !== null)) as EndpointInput;
}

/** Webhooks for Managers: the same domain functions as REST. */
export const webhookResolvers = {
  Query: {
    webhooks: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await listWebhooks(context.deps, userOf(context))).map(presentWebhook),
    webhookDeliveries: async (
      _: unknown,
      args: { webhookId: string; status?: string | null; limit?: number | null; cursor?: string | null },
      context: GraphqlContext,
    ) => {
      const page = await listWebhookDeliveries(context.deps, userOf(context), args.webhookId, {
        status: args.status ?? undefined,
        limit: args.limit ?? undefined,
        cursor: args.cursor ?? undefined,
      });
      return { deliveries: page.deliveries.map(presentDelivery), nextCursor: page.nextCursor };
    },
  },
  Mutation: {
    createWebhook: async (_: unknown, args: { input: InputArgs }, context: GraphqlContext) => {
      const created = await createWebhook(webhookDeps(context), userOf(context), inputOf(args.input));
      return { webhook: presentWebhook(created), secret: created.secret };
    },
    updateWebhook: async (_: unknown, args: { id: string; input: InputArgs }, context: GraphqlContext) =>
      presentWebhook(await updateWebhook(webhookDeps(context), userOf(context), args.id, inputOf(args.input))),
    deleteWebhook: async (_: unknown, args: { id: string }, context: GraphqlContext) => {
      await deleteWebhook(webhookDeps(context), userOf(context), args.id);
      return true;
    },
    rotateWebhookSecret: async (_: unknown, args: { id: string }, context: GraphqlContext) => {
      const rotated = await rotateWebhookSecret(webhookDeps(context), userOf(context), args.id);
      return { webhook: presentWebhook(rotated), secret: rotated.secret };
    },
    replayWebhookDeliveries: async (
      _: unknown,
      args: { webhookId: string; deliveryId?: string | null; since?: number | null },
      context: GraphqlContext,
    ) =>
      replayWebhookDeliveries(
        webhookDeps(context),
        userOf(context),
        args.webhookId,
        args.deliveryId ? { deliveryId: args.deliveryId } : { since: (args.since ?? Number.NaN) * 1000 },
      ),
    testWebhook: async (_: unknown, args: { id: string }, context: GraphqlContext) =>
      presentAttempt(await testWebhook(webhookDeps(context), userOf(context), args.id)),
  },
};
