import { webhookEventTypes } from '../../domain/webhooks/webhook-types.js';

/** What each event's `data` holds (SPEC section 11), for the OpenAPI 3.1 `webhooks` section. */
const dataOf: Record<string, { description: string; schema: Record<string, unknown> }> = {
  'message.stored': {
    description: 'The stored message as GET /things/{tuid}/messages lists it, plus `seq`, the thing’s stored sequence number.',
    schema: {
      type: 'object',
      required: ['tsmId', 'tsmTuid', 'seq'],
      properties: { tsmId: { type: 'integer' }, tsmTuid: { type: 'string' }, seq: { type: ['integer', 'null'] } },
    },
  },
  'alert.opened': {
    description: 'An alert period opened; `from` and `to` as REST gives them (local date-times in ALERT_TIMEZONE).',
    schema: {
      type: 'object',
      required: ['tuid', 'alert_type', 'from', 'to'],
      properties: { tuid: { type: 'string' }, alert_type: { type: 'string' }, from: { type: 'string' }, to: { type: ['string', 'null'] } },
    },
  },
  'alert.closed': {
    description: 'An alert period closed.',
    schema: {
      type: 'object',
      required: ['tuid', 'alert_type', 'from', 'to'],
      properties: { tuid: { type: 'string' }, alert_type: { type: 'string' }, from: { type: 'string' }, to: { type: 'string' } },
    },
  },
  'command.answered': {
    description: 'A thing answered a command.',
    schema: {
      type: 'object',
      required: ['tuid', 'transaction_id', 'tsm_id', 'status', 'response'],
      properties: {
        tuid: { type: 'string' },
        transaction_id: { type: 'integer' },
        tsm_id: { type: 'integer' },
        status: { type: 'string' },
        response: { type: 'object' },
      },
    },
  },
  'thing.changed': {
    description: 'A thing’s installation status or group changed: `changes` maps each field to `{from, to}`.',
    schema: { type: 'object', required: ['tuid', 'changes'], properties: { tuid: { type: 'string' }, changes: { type: 'object' } } },
  },
};

/**
 * The OpenAPI 3.1 `webhooks` section: each event as the POST a receiver gets (one event; with batch_max_events over
 * 1 the body is `{type: "batch", timestamp, data: [events]}`), signed per Standard Webhooks (docs/webhooks.md).
 */
export function openApiWebhooks(): Record<string, unknown> {
  return Object.fromEntries(
    webhookEventTypes.map((type) => [
      type,
      {
        post: {
          operationId: `webhook-${type}`,
          summary: `${type}: ${dataOf[type]!.description}`,
          description:
            'Sent with headers webhook-id (the same on every retry), webhook-timestamp and webhook-signature (Standard Webhooks 1.0). Answer 2xx within WEBHOOK_TIMEOUT_MS; 410 disables the endpoint.',
          security: [],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['id', 'type', 'timestamp', 'data'],
                  properties: {
                    id: { type: 'string', description: 'The event’s unique id' },
                    type: { type: 'string', const: type },
                    timestamp: { type: 'string', format: 'date-time' },
                    data: dataOf[type]!.schema,
                  },
                },
              },
            },
          },
          responses: { '200': { description: 'Received (any 2xx)' } },
        },
      },
    ]),
  );
}
