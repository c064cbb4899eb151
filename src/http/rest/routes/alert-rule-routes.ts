import { Type, type Static } from '@sinclair/typebox';
import { alertSeverities } from '../../../domain/alerts/alert-types.js';
import { createAlertRule, deleteAlertRule, getAlertRule, listAlertRules, updateAlertRule } from '../../../domain/rules/rule-service.js';
import { ruleOps, type AlertRule, type RuleInput } from '../../../domain/rules/rule-types.js';
import { ruleLimits } from '../../../domain/rules/rule-validation.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { UnixSeconds, dataOf, errors } from '../schemas.js';

const Strings = Type.Union([Type.Array(Type.String(), { maxItems: ruleLimits.scopeEntries }), Type.Null()]);
const Scope = Type.Object(
  {
    group_ids: Type.Optional({ ...Strings, description: 'Things in these groups (`unassigned`: in none); null or absent: any group' }),
    tuids: Type.Optional({ ...Strings, description: 'These things only; null or absent: any thing' }),
  },
  { additionalProperties: false, description: 'Which things the rule covers: both lists narrow (AND); empty: every thing' },
);
const fields = {
  name: Type.String({ description: 'Unique in the organization, 1..100 characters; what its periods show as `alert_type`' }),
  tsm_id: Type.Integer({ description: 'The message id the rule reads (in the catalog or not)' }),
  field: Type.String({ description: 'A dotted path into the message (`temp`, `env.temp`)' }),
  op: Type.Union(
    ruleOps.map((op) => Type.Literal(op)),
    { description: 'How the value compares with the threshold: gt, gte, lt, lte, eq, ne' },
  ),
  threshold: Type.Number(),
  clear_threshold: Type.Union([Type.Number(), Type.Null()], {
    description: 'Hysteresis: the alert closes only once the value is back past this; null: the threshold',
  }),
  for_s: Type.Integer({ description: 'Seconds the condition must hold (by arrival time) before the alert opens; default 0' }),
  scope: Scope,
  severity: Type.Union(
    alertSeverities.map((s) => Type.Literal(s)),
    { description: 'info, warning or critical' },
  ),
  enabled: Type.Boolean({ description: 'Default true; false closes its open alerts' }),
  channels: Type.Array(Type.String(), { maxItems: ruleLimits.channels, description: 'Notification channel ids to tell' }),
};
const CreateBody = Type.Object(
  {
    name: fields.name,
    tsm_id: fields.tsm_id,
    field: fields.field,
    op: fields.op,
    threshold: fields.threshold,
    clear_threshold: Type.Optional(fields.clear_threshold),
    for_s: Type.Optional(fields.for_s),
    scope: Type.Optional(fields.scope),
    severity: fields.severity,
    enabled: Type.Optional(fields.enabled),
    channels: Type.Optional(fields.channels),
  },
  { additionalProperties: false },
);
const PatchBody = Type.Partial(CreateBody, { additionalProperties: false });
const Rule = Type.Object({
  id: Type.String(),
  name: Type.String(),
  tsm_id: Type.Integer(),
  field: Type.String(),
  op: fields.op,
  threshold: Type.Number(),
  clear_threshold: Type.Union([Type.Number(), Type.Null()]),
  for_s: Type.Integer(),
  scope: Type.Object({
    group_ids: Type.Union([Type.Array(Type.String()), Type.Null()]),
    tuids: Type.Union([Type.Array(Type.String()), Type.Null()]),
  }),
  severity: fields.severity,
  enabled: Type.Boolean(),
  channels: Type.Array(Type.String()),
  created_at: UnixSeconds,
  updated_at: UnixSeconds,
});
const IdParams = Type.Object({ id: Type.String() });

// The domain's names as these routes name them.
const fieldNames = {
  tsmId: 'tsm_id',
  clearThreshold: 'clear_threshold',
  forS: 'for_s',
  'scope.groupIds': 'scope.group_ids',
} as const;

export function presentAlertRule(r: AlertRule): Static<typeof Rule> {
  return {
    id: r.id,
    name: r.name,
    tsm_id: r.tsmId,
    field: r.field,
    op: r.op,
    threshold: r.threshold,
    clear_threshold: r.clearThreshold,
    for_s: r.forS,
    scope: { group_ids: r.scope.groupIds, tuids: r.scope.tuids },
    severity: r.severity,
    enabled: r.enabled,
    channels: r.channels,
    created_at: r.createdAt / 1000,
    updated_at: r.updatedAt / 1000,
  };
}

function inputOf(body: Partial<Static<typeof CreateBody>>): RuleInput {
  return {
    name: body.name,
    tsmId: body.tsm_id,
    field: body.field,
    op: body.op,
    threshold: body.threshold,
    clearThreshold: body.clear_threshold,
    forS: body.for_s,
    scope: body.scope === undefined ? undefined : { groupIds: body.scope.group_ids, tuids: body.scope.tuids },
    severity: body.severity,
    enabled: body.enabled,
    channels: body.channels,
  };
}

/** Alert rules (SPEC section 13): every caller reads them; Managers and API clients change them. */
export function registerAlertRuleRoutes(app: RestApp, deps: RestDeps): void {
  const tags = ['alert rules'];

  app.post(
    '/alert-rules',
    {
      config: { fieldNames },
      schema: {
        operationId: 'createAlertRule',
        tags,
        summary: 'Create an alert rule on a numeric field of an uplink',
        body: CreateBody,
        response: { 200: dataOf(Rule), ...errors(400, 401, 403, 409, 429) },
      },
    },
    async (request) => ({ data: presentAlertRule(await createAlertRule(deps, request.client, inputOf(request.body))) }),
  );

  app.get(
    '/alert-rules',
    {
      schema: {
        operationId: 'listAlertRules',
        tags,
        summary: "List the organization's alert rules by name",
        response: { 200: dataOf(Type.Array(Rule)), ...errors(401, 429) },
      },
    },
    async (request) => ({ data: (await listAlertRules(deps, request.client)).map(presentAlertRule) }),
  );

  app.get(
    '/alert-rules/:id',
    {
      schema: {
        operationId: 'getAlertRule',
        tags,
        summary: 'Read an alert rule',
        params: IdParams,
        response: { 200: dataOf(Rule), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => ({ data: presentAlertRule(await getAlertRule(deps, request.client, request.params.id)) }),
  );

  app.patch(
    '/alert-rules/:id',
    {
      config: { fieldNames },
      schema: {
        operationId: 'updateAlertRule',
        tags,
        summary: 'Change an alert rule; disabling it closes its open alerts, renaming keeps its history',
        params: IdParams,
        body: PatchBody,
        response: { 200: dataOf(Rule), ...errors(400, 401, 403, 404, 409, 429) },
      },
    },
    async (request) => ({
      data: presentAlertRule(await updateAlertRule(deps, request.client, request.params.id, inputOf(request.body))),
    }),
  );

  app.delete(
    '/alert-rules/:id',
    {
      schema: {
        operationId: 'deleteAlertRule',
        tags,
        summary: 'Delete an alert rule; its open alerts close and stay in the history',
        params: IdParams,
        response: { 200: dataOf(Type.Object({ id: Type.String(), deleted: Type.Boolean() })), ...errors(400, 401, 403, 404, 429) },
      },
    },
    async (request) => {
      await deleteAlertRule(deps, request.client, request.params.id);
      return { data: { id: request.params.id, deleted: true } };
    },
  );
}
