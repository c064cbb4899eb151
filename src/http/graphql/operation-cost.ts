import {
  GraphQLError,
  getNamedType,
  getOperationAST,
  isCompositeType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';
import { AppError } from '../../domain/errors.js';
import { readCosts } from '../../domain/workload/read-costs.js';
import { appErrorAsGraphql } from './graphql-errors.js';

type Arguments = Record<string, unknown>;

/**
 * The fields that read much, by `Type.field`: what the field reads itself (`own`), and for a list, how many items
 * its selection is repeated for (`items`, one unit each). A field not listed costs what it selects.
 */
const fieldCosts: Record<string, { own?: (args: Arguments) => number; items?: (args: Arguments) => number }> = {
  'Query.series': { own: readCosts.series },
  'Query.groupSeries': { own: readCosts.series },
  'Query.messages': { own: readCosts.messages },
  'Query.fleetHealth': { own: readCosts.fleetHealth },
  'Query.things': { items: readCosts.thingPage },
  'Query.groups': { items: readCosts.groupPage },
  'Query.alertPeriods': { items: readCosts.thingPage },
  'Query.gateways': { items: readCosts.thingPage },
  'GatewayDetail.things': { items: () => readCosts.groupThings },
  'Thing.seriesFields': { own: () => readCosts.seriesFields },
  'Query.alertRulePreview': { own: () => readCosts.rulePreview },
  'GroupThings.things': { items: () => readCosts.groupThings },
};

/**
 * The cost of the operation a request runs (domain/workload/read-costs.ts): every costed field with its arguments
 * as this request gives them (literals, variables, variables' defaults), summed over aliases and fragments (each as
 * often as it is spread), and multiplied through a list parent's items. Computed per request, never cached with the
 * document: the same cached or compiled document costs what its variables say. Time linear in the document (a
 * fragment is costed once per request); the document is already within the depth and size limits.
 */
export function costOf(schema: GraphQLSchema, document: DocumentNode, variables: Arguments, operationName?: string): number {
  const operation = getOperationAST(document, operationName);
  const root = operation && schema.getRootType(operation.operation);
  if (!operation || !root) return 0;
  const values: Arguments = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (name in variables) values[name] = variables[name];
    else if (definition.defaultValue) values[name] = valueFromASTUntyped(definition.defaultValue);
  }
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  const costed = new Map<string, number>();

  const selectionCost = (selectionSet: SelectionSetNode, parent: GraphQLCompositeType): number => {
    let sum = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) sum += fieldCost(selection, parent);
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        const type = selection.typeCondition ? schema.getType(selection.typeCondition.name.value) : parent;
        if (type && isCompositeType(type)) sum += selectionCost(selection.selectionSet, type);
      } else sum += fragmentCost(selection.name.value);
    }
    return sum;
  };

  const fragmentCost = (name: string): number => {
    const known = costed.get(name);
    if (known !== undefined) return known;
    const fragment = fragments.get(name);
    const type = fragment && schema.getType(fragment.typeCondition.name.value);
    // Marked before it is walked: a cycle (refused by validation anyway) adds nothing.
    costed.set(name, 0);
    const cost = fragment && type && isCompositeType(type) ? selectionCost(fragment.selectionSet, type) : 0;
    costed.set(name, cost);
    return cost;
  };

  const fieldCost = (field: FieldNode, parent: GraphQLCompositeType): number => {
    if (!isObjectType(parent) && !isInterfaceType(parent)) return 0;
    const definition = parent.getFields()[field.name.value];
    if (!definition) return 0;
    const type = getNamedType(definition.type);
    const below = field.selectionSet && isCompositeType(type) ? selectionCost(field.selectionSet, type) : 0;
    const costs = fieldCosts[`${parent.name}.${field.name.value}`];
    if (!costs) return below;
    const args: Arguments = {};
    for (const argument of field.arguments ?? []) args[argument.name.value] = valueFromASTUntyped(argument.value, values);
    const own = costs.own?.(args) ?? 0;
    return costs.items ? own + costs.items(args) * (1 + below) : own + below;
  };

  return selectionCost(operation.selectionSet, root);
}

/**
 * COST_LIMIT when the request costs more than `budget` (GRAPHQL_COST_LIMIT), naming both; nothing when it fits.
 * Refused before anything runs, as the validation errors are.
 */
export function overBudget(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables: Arguments | null | undefined,
  operationName: string | null | undefined,
  budget: number,
): GraphQLError[] {
  const cost = Math.ceil(costOf(schema, document, variables ?? {}, operationName ?? undefined));
  if (cost <= budget) return [];
  const shown = Number.isSafeInteger(cost) ? String(cost) : `more than ${Number.MAX_SAFE_INTEGER}`;
  const error = new AppError(
    'COST_LIMIT',
    `This request costs ${shown}, more than the ${budget} one request may cost (GRAPHQL_COST_LIMIT). Each series costs its ` +
      'maxPoints plus an hour of raw range, each message list its limit, and a list multiplies what its items select: ' +
      'ask with fewer aliases, smaller limits or maxPoints, or shorter raw ranges.',
    [],
    { budget, cost: Number.isSafeInteger(cost) ? cost : Number.MAX_SAFE_INTEGER },
  );
  const { message, extensions } = appErrorAsGraphql(error);
  return [new GraphQLError(message, { extensions })];
}
