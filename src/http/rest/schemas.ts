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
  name: Type.Union([Type.String(), Type.Null()], { description: 'at most 200 characters; null when unset' }),
  labels: Type.Record(Type.String(), Type.String(), { description: 'label key to value (at most 50); `{}` when none' }),
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

const Since = {
  since: Type.Integer({ description: 'when the period began, Unix seconds' }),
  since_local: Type.String({ description: 'the same instant as a local date-time YYYY-MM-DDTHH:MM:SS in ALERT_TIMEZONE' }),
};
const Share = Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()]);

/** `GET /fleet/health`: the fleet overview (docs/decisions.md, Fleet health, defines each figure). */
export const FleetHealth = Type.Object({
  generated_at: Type.Integer({ description: 'when the figures were read, Unix seconds' }),
  window_days: Type.Integer({ description: 'the uptime window in days' }),
  battery_below: Type.Number({ description: 'the low battery threshold in percent' }),
  status_counts: Type.Object(
    {
      total: Type.Integer(),
      new: Type.Integer(),
      installed: Type.Integer(),
      uninstalled: Type.Integer(),
      quarantine: Type.Integer(),
      retired: Type.Integer(),
    },
    { description: 'things per installation status' },
  ),
  alerting: Type.Object({
    thing_count: Type.Integer({ description: 'things with at least one active alert' }),
    alert_count: Type.Integer({ description: 'active alert periods (a thing with two active types counts twice)' }),
    alerts: Type.Array(Type.Object({ tuid: Type.String(), alert_type: Type.String(), ...Since }), {
      description: 'the active periods, newest first, at most `limit`',
    }),
  }),
  silent_gateways: Type.Object({
    count: Type.Integer({ description: 'gateways with an active `gateway connection lost`' }),
    gateways: Type.Array(
      Type.Object({
        gateway_tuid: Type.String(),
        thing_count: Type.Integer({ description: 'things whose active gateway alert names the gateway' }),
        ...Since,
      }),
      { description: 'the most recently silent first, at most `limit`; `since` is its earliest active period' },
    ),
  }),
  low_battery: Type.Object({
    count: Type.Integer({ description: 'things whose newest battery level is below `battery_below`, whatever their status' }),
    things: Type.Array(
      Type.Object({ tuid: Type.String(), battery_level: Type.Integer({ description: 'rounded as the summary shows it' }) }),
      {
        description: 'the lowest level first, at most `limit`',
      },
    ),
  }),
  groups: Type.Array(
    Type.Object({
      group_id: Type.String({ description: '`unassigned` for the things in no group' }),
      thing_count: Type.Integer({ description: 'things in the group, whatever their status' }),
      installed: Type.Integer(),
      online: Type.Integer({ description: 'installed things with no active connection alert' }),
      online_share: { ...Share, description: 'online / installed; null without installed things' },
      downtime_seconds: Type.Number({ description: 'time the installed things spent under a connection alert in the window' }),
      uptime: { ...Share, description: '1 - downtime_seconds / (installed x window seconds); null without installed things' },
      battery: Type.Array(Type.Object({ bucket: Type.String(), count: Type.Integer() }), {
        description: 'installed things per battery bucket: unknown, 0-14, 15-29, 30-49, 50-79, 80-100 (by the exact level)',
      }),
    }),
    { description: 'one line per group and for `unassigned`, by group id, `unassigned` last' },
  ),
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** An alert period as a work item (SPEC section 16). */
export const AlertWorkItem = Type.Object({
  id: Type.Integer(),
  tuid: Type.String(),
  alert_type: Type.String({ description: "'gateway connection lost', 'device connection lost', 'battery low', or a rule's" }),
  severity: Nullable(Type.String({ description: 'critical, warning or info' })),
  rule_id: Nullable(Type.String({ description: 'the alert rule that opened it; null for built-in alerts' })),
  value: Nullable(Type.Number({ description: 'the value that opened it (battery low: the batl); null when none' })),
  from: Type.String({ description: 'local date-time YYYY-MM-DDTHH:MM:SS in ALERT_TIMEZONE' }),
  to: Nullable(Type.String({ description: 'null while the period is open' })),
  from_ts: Type.Integer({ description: 'Unix seconds' }),
  to_ts: Nullable(Type.Integer({ description: 'Unix seconds; null while open' })),
  gateway_tuid: Nullable(Type.String({ description: "the thing's gateway when the period opened" })),
  group_id: Type.String({ description: "the thing's group when the period opened; `unassigned` for none" }),
  incident_id: Nullable(Type.String({ description: 'periods that share a cause share it (one gateway silence)' })),
  acknowledged: Nullable(
    Type.Object({
      by: Type.String({ description: 'the client id or user e-mail (as `responsible`)' }),
      at: Type.Integer({ description: 'Unix seconds' }),
      note: Nullable(Type.String()),
    }),
  ),
});

/** A gateway as the messages name it (SPEC section 16). */
export const GatewaySummary = Type.Object({
  gateway_tuid: Type.String(),
  last_seen: Type.Integer({ description: 'Unix seconds: the newest arrival through it, on the platform clock' }),
  silent_since: Nullable(Type.Integer({ description: 'Unix seconds: when its silence passed GATEWAY_TIMEOUT_S; null while online' })),
  thing_count: Type.Integer({ description: 'things last heard through it' }),
  things_silent: Type.Integer({ description: 'of those, the ones silent for DEVICE_TIMEOUT_S' }),
  mqtt_username: Nullable(Type.String({ description: 'the MQTT credential it last published with; null when not known' })),
});
