import { Kind, type ASTVisitor, type FragmentDefinitionNode, type SelectionSetNode, type ValidationContext, type ValidationRule } from 'graphql';
import { codedError } from './graphql-errors.js';

/** Bounds on one operation, so a single request cannot exhaust the server (SPEC section 4, issue 6). */
export const queryLimits = { maxDepth: 10, maxFields: 300, maxRootFields: 20 } as const;

/**
 * Depth, size and breadth of an operation, fragments expanded: deeper than `maxDepth`, more than `maxFields`
 * field selections in all, or more than `maxRootFields` top-level fields (aliases count) is refused before
 * anything runs. List sizes themselves are bounded by each operation's own `limit` rules in the domain.
 */
export const operationLimitsRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of context.getDocument().definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  return {
    OperationDefinition(operation) {
      const counter = { fields: 0 };
      const depth = measure(operation.selectionSet, fragments, 1, counter, new Set());
      const roots = countFields(operation.selectionSet, fragments, new Set());
      if (depth > queryLimits.maxDepth) context.reportError(codedError(`The operation is nested ${depth} levels deep; at most ${queryLimits.maxDepth} are allowed.`, 'BAD_USER_INPUT', operation));
      if (counter.fields > queryLimits.maxFields) context.reportError(codedError(`The operation selects ${counter.fields} fields; at most ${queryLimits.maxFields} are allowed.`, 'BAD_USER_INPUT', operation));
      if (roots > queryLimits.maxRootFields) context.reportError(codedError(`The operation has ${roots} top-level fields; at most ${queryLimits.maxRootFields} are allowed.`, 'BAD_USER_INPUT', operation));
    },
  };
};

function measure(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, depth: number, counter: { fields: number }, visiting: Set<string>): number {
  let deepest = depth;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      counter.fields += 1;
      if (selection.selectionSet) deepest = Math.max(deepest, measure(selection.selectionSet, fragments, depth + 1, counter, visiting));
    } else if (selection.kind === Kind.INLINE_FRAGMENT) {
      deepest = Math.max(deepest, measure(selection.selectionSet, fragments, depth, counter, visiting));
    } else {
      const fragment = fragments.get(selection.name.value);
      // A fragment cycle is reported by GraphQL's own NoFragmentCycles rule; do not loop on it here.
      if (!fragment || visiting.has(fragment.name.value)) continue;
      visiting.add(fragment.name.value);
      deepest = Math.max(deepest, measure(fragment.selectionSet, fragments, depth, counter, visiting));
      visiting.delete(fragment.name.value);
    }
  }
  return deepest;
}

function countFields(selectionSet: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, visiting: Set<string>): number {
  let count = 0;
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) count += 1;
    else if (selection.kind === Kind.INLINE_FRAGMENT) count += countFields(selection.selectionSet, fragments, visiting);
    else {
      const fragment = fragments.get(selection.name.value);
      if (!fragment || visiting.has(fragment.name.value)) continue;
      visiting.add(fragment.name.value);
      count += countFields(fragment.selectionSet, fragments, visiting);
      visiting.delete(fragment.name.value);
    }
  }
  return count;
}

/**
 * Introspection needs a valid access token (seed 001): for a caller who is not signed in, `__schema` and `__type`
 * are refused with UNAUTHENTICATED. (`__typename` stays allowed: it reveals nothing.)
 */
export const introspectionNeedsSignInRule: ValidationRule = (context) => ({
  Field(node) {
    if (node.name.value === '__schema' || node.name.value === '__type') {
      context.reportError(codedError('Introspection requires a valid access token: sign in first.', 'UNAUTHENTICATED', node));
    }
  },
});
