import {
  Kind,
  type ASTVisitor,
  type DocumentNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import { codedError } from './graphql-errors.js';

/**
 * Bounds on one operation, so a single request cannot exhaust the server (SPEC section 4, issue 6). The subtrees
 * of the introspection meta-fields (`__schema`, `__type`) are measured apart, against their own bounds: the
 * standard introspection document of graphql-js (`getIntrospectionQuery` with every option, which GraphiQL, code
 * generators and API tools send) is 14 levels deep and 229 fields below `__schema`, with lists nested 3 deep
 * (types, their fields, their arguments). The bounds admit it with a little room and no more: what an operation
 * may select outside introspection is unchanged, and naming `__schema` only opens the introspection types, whose
 * answer is bounded by the schema's size times these numbers.
 */
export const queryLimits = {
  maxDepth: 10,
  maxFields: 300,
  maxRootFields: 20,
  maxIntrospectionDepth: 16,
  maxIntrospectionFields: 300,
  maxIntrospectionLists: 3,
} as const;

/** The meta-fields whose subtrees are measured against the introspection bounds. */
const introspectionFields = new Set(['__schema', '__type']);
/** Fields of the introspection types that answer lists: each nesting multiplies the answer by the schema's size. */
const introspectionListFields = new Set([
  'types',
  'directives',
  'fields',
  'args',
  'inputFields',
  'interfaces',
  'possibleTypes',
  'enumValues',
]);

/**
 * Depth (field levels), field selections in all and top-level fields of a selection set, fragments expanded;
 * `lists` is the deepest nesting of introspection list fields. The `introspection*` numbers are those of the
 * introspection subtrees within, which count nothing towards the others but the meta-field itself.
 */
export interface SelectionCost {
  depth: number;
  fields: number;
  roots: number;
  lists: number;
  introspectionDepth: number;
  introspectionFields: number;
  introspectionLists: number;
}

const noCost: SelectionCost = {
  depth: 0,
  fields: 0,
  roots: 0,
  lists: 0,
  introspectionDepth: 0,
  introspectionFields: 0,
  introspectionLists: 0,
};

/**
 * Measures every operation and fragment of a document with fragments expanded, in time linear in the document:
 * each fragment is measured once and its cost reused at every spread. Expanding spreads instead (as a naive walk
 * does) is exponential: `fragment F1 on Query { ...F2 ...F2 }` nested 25 levels held the event loop for seconds.
 * `visits` counts the selections walked, so tests can check the linear bound.
 */
export class DocumentCost {
  visits = 0;
  private readonly fragments = new Map<string, FragmentDefinitionNode>();
  private readonly measured = new Map<string, SelectionCost>();
  private readonly measuring = new Set<string>();

  constructor(document: DocumentNode) {
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) this.fragments.set(definition.name.value, definition);
    }
  }

  fragmentNames(): string[] {
    return [...this.fragments.keys()];
  }

  of(selectionSet: SelectionSetNode): SelectionCost {
    const cost: SelectionCost = { ...noCost };
    for (const selection of selectionSet.selections) {
      this.visits += 1;
      let inner: SelectionCost;
      if (selection.kind === Kind.FIELD) {
        const below = selection.selectionSet ? this.of(selection.selectionSet) : noCost;
        inner = introspectionFields.has(selection.name.value)
          ? metaField(below)
          : field(below, introspectionListFields.has(selection.name.value));
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        inner = this.of(selection.selectionSet);
      } else {
        inner = this.fragment(selection.name.value);
      }
      cost.depth = Math.max(cost.depth, inner.depth);
      cost.fields += inner.fields;
      cost.roots += inner.roots;
      cost.lists = Math.max(cost.lists, inner.lists);
      cost.introspectionDepth = Math.max(cost.introspectionDepth, inner.introspectionDepth);
      cost.introspectionFields += inner.introspectionFields;
      cost.introspectionLists = Math.max(cost.introspectionLists, inner.introspectionLists);
    }
    return cost;
  }

  fragment(name: string): SelectionCost {
    const known = this.measured.get(name);
    if (known) return known;
    const fragment = this.fragments.get(name);
    // An unknown fragment or a cycle is reported by GraphQL's own rules; it adds nothing here.
    if (!fragment || this.measuring.has(name)) return noCost;
    this.measuring.add(name);
    const cost = this.of(fragment.selectionSet);
    this.measuring.delete(name);
    this.measured.set(name, cost);
    return cost;
  }
}

/** An ordinary field over what it selects. */
function field(below: SelectionCost, isIntrospectionList: boolean): SelectionCost {
  return { ...below, depth: below.depth + 1, fields: below.fields + 1, roots: 1, lists: below.lists + (isIntrospectionList ? 1 : 0) };
}

/**
 * `__schema` or `__type`: one field and one level where it stands; everything below it (introspection nested in
 * it too, which GraphQL's rules refuse later) counts towards the introspection bounds.
 */
function metaField(below: SelectionCost): SelectionCost {
  return {
    ...noCost,
    depth: 1,
    fields: 1,
    roots: 1,
    introspectionDepth: Math.max(below.depth, below.introspectionDepth),
    introspectionFields: below.fields + below.introspectionFields,
    introspectionLists: Math.max(below.lists, below.introspectionLists),
  };
}

/** A fragment on an introspection type (`__Type`, `__Field`, ...) lies below a meta-field wherever it is valid. */
function asIntrospection(cost: SelectionCost): SelectionCost {
  return {
    ...noCost,
    introspectionDepth: Math.max(cost.depth, cost.introspectionDepth),
    introspectionFields: cost.fields + cost.introspectionFields,
    introspectionLists: Math.max(cost.lists, cost.introspectionLists),
  };
}

/**
 * Depth, size and breadth of an operation, fragments expanded: deeper than `maxDepth`, more than `maxFields`
 * field selections in all, or more than `maxRootFields` top-level fields (aliases count) is refused before
 * anything runs. A fragment that alone exceeds a limit is refused too, used or not, so that no later rule
 * spends time on it. List sizes themselves are bounded by each operation's own `limit` rules in the domain.
 */
export const operationLimitsRule: ValidationRule = (context: ValidationContext): ASTVisitor => {
  const costs = new DocumentCost(context.getDocument());
  return {
    OperationDefinition(operation) {
      const cost = costs.of(operation.selectionSet);
      for (const message of overLimits(cost, 'The operation')) context.reportError(codedError(message, 'BAD_USER_INPUT', operation));
    },
    FragmentDefinition(fragment) {
      const measured = costs.fragment(fragment.name.value);
      const cost = fragment.typeCondition.name.value.startsWith('__') ? asIntrospection(measured) : measured;
      for (const message of overLimits({ ...cost, roots: 0 }, `The fragment ${fragment.name.value}`)) {
        context.reportError(codedError(message, 'BAD_USER_INPUT', fragment));
      }
    },
  };
};

// Beyond this a count is only "too many": a fragment graph can describe more fields than a double holds exactly.
const countShownUpTo = 1_000_000;

function overLimits(cost: SelectionCost, subject: string): string[] {
  const messages: string[] = [];
  const count = (n: number) => (n > countShownUpTo ? `more than ${countShownUpTo}` : String(n));
  if (cost.depth > queryLimits.maxDepth)
    messages.push(`${subject} is nested ${count(cost.depth)} levels deep; at most ${queryLimits.maxDepth} are allowed.`);
  if (cost.fields > queryLimits.maxFields)
    messages.push(`${subject} selects ${count(cost.fields)} fields; at most ${queryLimits.maxFields} are allowed.`);
  if (cost.roots > queryLimits.maxRootFields)
    messages.push(`${subject} has ${count(cost.roots)} top-level fields; at most ${queryLimits.maxRootFields} are allowed.`);
  const introspection = `${subject} introspects`;
  if (cost.introspectionDepth > queryLimits.maxIntrospectionDepth) {
    messages.push(
      `${introspection} ${count(cost.introspectionDepth)} levels deep; at most ${queryLimits.maxIntrospectionDepth} are allowed.`,
    );
  }
  if (cost.introspectionFields > queryLimits.maxIntrospectionFields) {
    messages.push(`${introspection} ${count(cost.introspectionFields)} fields; at most ${queryLimits.maxIntrospectionFields} are allowed.`);
  }
  if (cost.introspectionLists > queryLimits.maxIntrospectionLists) {
    messages.push(
      `${introspection} lists nested ${count(cost.introspectionLists)} deep; at most ${queryLimits.maxIntrospectionLists} are allowed.`,
    );
  }
  return messages;
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
