import { createAlertRule, deleteAlertRule, listAlertRules, updateAlertRule } from '../../../domain/rules/rule-service.js';
import { previewAlertRule } from '../../../domain/rules/rule-preview.js';
import type { AlertRule, RuleInput } from '../../../domain/rules/rule-types.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

function presentAlertRule(r: AlertRule) {
  return {
    id: r.id,
    name: r.name,
    tsmId: r.tsmId,
    field: r.field,
    op: r.op,
    threshold: r.threshold,
    clearThreshold: r.clearThreshold,
    forS: r.forS,
    scope: r.scope,
    severity: r.severity,
    enabled: r.enabled,
    channels: r.channels,
    createdAt: r.createdAt / 1000,
    updatedAt: r.updatedAt / 1000,
  };
}

type InputArgs = { [K in keyof RuleInput]?: RuleInput[K] | null };

/** GraphQL's nulls are "not given" here, as REST's absent fields; clearThreshold: null is REST's "the threshold" too. */
function inputOf(input: InputArgs): RuleInput {
  return Object.fromEntries(Object.entries(input).filter(([key, value]) => value !== null || key === 'clearThreshold')) as RuleInput;
}

/** Alert rules: the same domain functions as REST. */
export const alertRuleResolvers = {
  Query: {
    alertRules: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await listAlertRules(context.deps, userOf(context))).map(presentAlertRule),
    alertRulePreview: async (_: unknown, args: { tsmId: number; field: string; scope?: InputArgs['scope'] }, context: GraphqlContext) => {
      const preview = await previewAlertRule(context.deps, userOf(context), {
        tsmId: args.tsmId,
        field: args.field,
        scope: args.scope ?? null,
      });
      return {
        thingCount: preview.thingCount,
        samples: preview.samples.map((sample) => ({ ...sample, at: sample.at === null ? null : sample.at / 1000 })),
      };
    },
  },
  Mutation: {
    createAlertRule: async (_: unknown, args: { input: InputArgs }, context: GraphqlContext) =>
      presentAlertRule(await createAlertRule(context.deps, userOf(context), inputOf(args.input))),
    updateAlertRule: async (_: unknown, args: { id: string; input: InputArgs }, context: GraphqlContext) =>
      presentAlertRule(await updateAlertRule(context.deps, userOf(context), args.id, inputOf(args.input))),
    deleteAlertRule: async (_: unknown, args: { id: string }, context: GraphqlContext) => {
      await deleteAlertRule(context.deps, userOf(context), args.id);
      return true;
    },
  },
};
