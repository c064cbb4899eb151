import { GraphQLError, Kind, parse, specifiedRules, validate, type DocumentNode, type GraphQLSchema, type ValidationRule } from 'graphql';
import type { Audience } from './access.js';
import { codedError } from './graphql-errors.js';
import { overBudget } from './operation-cost.js';
import { QueryTextCache } from './query-text-cache.js';
import { introspectionNeedsSignInRule, operationLimitsRule } from './validation-rules.js';

// Clients send the same few query texts over and over: parsing and validating each once per audience is the
// difference between a GraphQL call costing a little more than a REST call and costing several. Bounded by count
// and by the texts' total length (query-text-cache.ts): 256 K characters hold about 25 MB of parsed, validated and
// compiled documents, and a client's own operations are a few hundred to a few thousand characters each.
const maxCached = 1000;
const maxCachedChars = 256 * 1024;

export interface PreparedOperation {
  schema: GraphQLSchema;
  document: DocumentNode;
}

/** What a request carries besides its query text: they change what it costs. */
export interface OperationRequest {
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/**
 * Parses and validates an operation against the caller's schema, with caches keyed by the query text (and the
 * audience, for validation). Anonymous callers get UNAUTHENTICATED for anything outside sign-in, with the reason
 * their token was refused when they sent one. Then costs it, on every request and never from a cache, since its
 * variables change its cost: over `costLimit` (GRAPHQL_COST_LIMIT) it is refused with COST_LIMIT (operation-cost.ts).
 */
export class OperationPreparer {
  private readonly documents = new QueryTextCache<DocumentNode | GraphQLError>(maxCached, maxCachedChars);
  private readonly validations = new QueryTextCache<readonly GraphQLError[]>(maxCached, maxCachedChars);
  private readonly rules: Record<'anonymous' | 'signedIn', readonly ValidationRule[]> = {
    anonymous: [...specifiedRules, introspectionNeedsSignInRule],
    signedIn: specifiedRules,
  };

  /** The total length of the query texts whose documents are kept (what bounds the caches' memory). */
  get cachedQueryChars(): number {
    return this.documents.cachedChars;
  }

  constructor(
    private readonly schemas: Record<Audience, GraphQLSchema>,
    private readonly costLimit: number,
  ) {}

  prepare(
    query: string,
    audience: Audience,
    tokenProblem?: string,
    request: OperationRequest = {},
  ): PreparedOperation | readonly GraphQLError[] {
    const document = this.parse(query);
    if (document instanceof GraphQLError) return [document];
    const schema = this.schemas[audience];
    const key = `${audience}\u0000${query}`;
    let errors = this.validations.get(key);
    if (!errors) {
      errors = this.validate(schema, document, audience);
      this.validations.set(key, errors);
    }
    if (errors.length > 0) return audience === 'anonymous' ? errors.map((error) => asSignInRequired(error, tokenProblem)) : errors;
    const overCost = overBudget(schema, document, request.variables, request.operationName, this.costLimit);
    if (overCost.length > 0) return overCost;
    return { schema, document };
  }

  /**
   * The size limits run first and alone: they cost time linear in the document, while some of GraphQL's own
   * rules (overlapping fields, above all) grow much faster on the oversized documents the limits exist to refuse.
   */
  private validate(schema: GraphQLSchema, document: DocumentNode, audience: Audience): readonly GraphQLError[] {
    const overLimits = validate(schema, document, [operationLimitsRule]);
    if (overLimits.length > 0) return overLimits;
    return [
      ...validate(schema, document, audience === 'anonymous' ? this.rules.anonymous : this.rules.signedIn),
      ...missingRootTypes(schema, document),
    ];
  }

  private parse(query: string): DocumentNode | GraphQLError {
    let document = this.documents.get(query);
    if (!document) {
      try {
        document = parse(query, { maxTokens: 10_000 });
      } catch (error) {
        // Anything but a syntax error is the parser giving up (a stack overflow on deep nesting): say so, without
        // the engine's own message.
        document =
          error instanceof GraphQLError
            ? error
            : codedError('The operation could not be parsed: it is nested too deeply.', 'BAD_USER_INPUT');
      }
      this.documents.set(query, document);
    }
    return document;
  }
}

/**
 * For a caller who is not signed in, an operation outside sign-in is not "unknown": it needs a token. Clients
 * re-authenticate on UNAUTHENTICATED, so that is the code; the message says why (no token, or why it failed).
 */
/**
 * GraphQL's validation accepts a subscription (or mutation) against a schema without that root type and only
 * fails when executing; report it with the other validation errors instead.
 */
function missingRootTypes(schema: GraphQLSchema, document: DocumentNode): GraphQLError[] {
  const errors: GraphQLError[] = [];
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION || schema.getRootType(definition.operation)) continue;
    errors.push(new GraphQLError(`Schema is not configured to execute ${definition.operation} operation.`, { nodes: definition }));
  }
  return errors;
}

// GraphQL's messages for an operation the schema does not have: a field, or a whole subscription type.
const outsideSchema = /^Cannot query field|not configured to execute (subscription|mutation)/;

function asSignInRequired(error: GraphQLError, tokenProblem: string | undefined): GraphQLError {
  if (error.extensions.code === 'UNAUTHENTICATED' || !outsideSchema.test(error.message)) return error;
  const reason = tokenProblem ?? 'No access token was sent.';
  return codedError(`${reason} Sign in to use this operation.`, 'UNAUTHENTICATED', error.nodes?.[0]);
}
