import { Type, type TSchema } from '@sinclair/typebox';
import { commandTsmIds } from '../../catalog/index.js';
import { tuidPattern } from '../../domain/things/tuid.js';

/**
 * Schemas shared by the REST routes. They validate requests, shape fast responses and generate the OpenAPI
 * document, so each shape is written once.
 */

export const Tuid = Type.String({
  pattern: tuidPattern.source,
  description: 'Thing id: 1-64 of A-Z a-z 0-9 . _ : -',
  'x-expected': '1 to 64 of A-Z a-z 0-9 . _ : -',
});
export const TuidParams = Type.Object({ tuid: Tuid });

export const FieldError = Type.Object({ field: Type.String(), message: Type.String() });

export const ErrorBody = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String(),
    message: Type.String(),
    code: Type.String(),
    errors: Type.Optional(Type.Array(FieldError)),
  },
  { $id: 'ErrorBody', additionalProperties: true },
);

/** `{ data: T }`, the envelope of every success (seed 000 part 1). */
export function dataOf<T extends TSchema>(schema: T) {
  return Type.Object({ data: schema });
}

/** The error answers a route may give, for the OpenAPI document. */
export function errors(...statuses: number[]): Record<number, TSchema> {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref(ErrorBody)]));
}

/** Unix seconds. Integers for times the platform sets; device times (tsmTs) are sent back as received. */
export const UnixSeconds = Type.Number({ description: 'Unix time in seconds' });

export const ThingSummary = Type.Object({
  tuid: Type.String(),
  battery_level: Type.Union([Type.Integer(), Type.Null()], { description: 'newest 1110 batl, rounded to a whole percent' }),
  timestamp: Type.Union([UnixSeconds, Type.Null()], { description: 'tsmTs of the newest message' }),
  location: Type.Union([Type.Object({ lat: Type.Number(), lon: Type.Number() }), Type.Null()]),
  gateway_tuid: Type.Union([Type.String(), Type.Null()]),
  version: Type.String({ description: 'newest 1100 swVersion, `unknown` until one arrives' }),
  installation_status: Type.String(),
  group_id: Type.String({ description: '`unassigned` for a thing in no group' }),
});

/** A command as published: the caller's fields (any id's own, free ones for 13200) with tsmTs and tsmDstTuid set. */
const sentCommandFields = {
  tsmId: Type.Integer({ description: `Message id: one of ${commandTsmIds.join(', ')}` }),
  tsmEv: Type.Integer({ description: 'Event id' }),
  tsmTs: Type.Integer({ description: 'Unix seconds, set by the service when it sent the command' }),
  tsmDstTuid: Type.String({ description: 'Destination thing, set by the service' }),
  transactionId: Type.Integer({ description: 'Echo of the transaction id sent; the thing answers with it' }),
};

export const SentCommand = Type.Object(sentCommandFields, {
  additionalProperties: true,
  description: 'The command as sent, plus tsmTs and tsmDstTuid',
});

export const SentCommandRequest = Type.Object({
  tuid: Type.String(),
  timestamp: Type.Integer({ description: 'Unix seconds when the service sent the request' }),
  responsible: Type.String({ description: 'The caller: client_id, or the user e-mail over GraphQL' }),
  commands: Type.Array(SentCommand),
});

export const TrackedCommand = Type.Object(
  {
    ...sentCommandFields,
    status: Type.Union([Type.Literal('sent'), Type.Literal('applied'), Type.Literal('unavailable')], {
      description: '`sent` until the thing answers with the transactionId; `unavailable` when it answered with 1102',
    }),
    response: Type.Union([Type.Object({}, { additionalProperties: true }), Type.Null()], { description: "The thing's answer as received" }),
    respondedAt: Type.Union([Type.Integer(), Type.Null()], { description: 'Unix seconds when the answer arrived' }),
  },
  { additionalProperties: true, description: 'A command as sent, with its status' },
);

export const CommandHistoryRecord = Type.Object({
  tuid: Type.String(),
  timestamp: Type.Integer({ description: 'Unix seconds when the request was sent' }),
  responsible: Type.String(),
  command: { ...TrackedCommand, description: 'The first command of the request' },
  commands: Type.Array(TrackedCommand),
});
