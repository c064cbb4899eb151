import { Type, type TSchema } from '@sinclair/typebox';
import { tuidPattern } from '../../domain/things/tuid.js';

/**
 * Schemas shared by the REST routes. They validate requests, shape fast responses and generate the OpenAPI
 * document, so each shape is written once.
 */

export const Tuid = Type.String({ pattern: tuidPattern.source, description: 'Thing id: 1-64 of A-Z a-z 0-9 . _ : -' });
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
