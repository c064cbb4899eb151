/** GraphQL documents to fuzz with: generated operations of the schema (literal arguments or variables) and junk documents. */
import fc from 'fast-check';
import { literalFor, valueFor } from './graphql-arguments.js';
import { objectTypes, operations, type Operation } from './graphql-schema-model.js';
import { anyJsonValue, injectionStrings, nastyString } from './nasty-values.js';

/** A selection set for an object type: some of its fields, maybe aliases, __typename, unknown fields, fragments. */
function selectionFor(type: string | null, depth: number): fc.Arbitrary<string> {
  if (type === null) return fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant(' { nope }') });
  const fields = objectTypes[type]!;
  const names = Object.keys(fields);
  const one: fc.Arbitrary<string> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(...names).chain((name) => {
        const child = fields[name]!;
        if (child === null || depth >= 4) return fc.constant(child === null ? name : `${name} { __typename }`);
        return selectionFor(child, depth + 1).map((inner) => `${name}${inner}`);
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '__typename',
        'nope',
        'a1: __typename',
        `... on ${type} { __typename }`,
        '... on Nope { x }',
        `${names[0]} { x }`,
        `${names[0]}(junk: 1)`,
        `${names[0]} @skip(if: true)`,
        `${names[0]} @include(if: $nope)`,
      ),
    },
  );
  return fc.array(one, { minLength: 1, maxLength: 4 }).map((parts) => ` { ${parts.join(' ')} }`);
}

export interface GeneratedOperation {
  kind: 'query' | 'mutation';
  query: string;
  variables: unknown;
  operationName: unknown;
  /** Response keys of the root fields (aliases), to tell which mutations were refused. */
  rootKeys: string[];
}

const operationArb = fc.oneof(...operations.map((operation) => ({ weight: operation.weight ?? 1, arbitrary: fc.constant(operation) })));

/** One root field with literal arguments. */
function literalField(operation: Operation, alias: string | undefined): fc.Arbitrary<string> {
  const args = Object.entries(operation.args).map(([name, type]) =>
    fc.oneof(
      { weight: 5, arbitrary: literalFor(name, type).map((literal) => `${name}: ${literal}`) },
      { weight: 1, arbitrary: fc.constant('') },
    ),
  );
  const extra = fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constantFrom('junk: 1', 'tuid: "GQ-1"', 'limit: 5') },
  );
  return fc.tuple(fc.tuple(...args), extra, selectionFor(operation.returns, 1)).map(([written, junk, selection]) => {
    const list = [...written, junk].filter(Boolean);
    return `${alias ? `${alias}: ` : ''}${operation.name}${list.length > 0 ? `(${list.join(', ')})` : ''}${selection}`;
  });
}

/** A document of one operation with literal arguments (one to three root fields of the same kind, aliased). */
const literalOperation: fc.Arbitrary<GeneratedOperation> = fc
  .tuple(operationArb, fc.integer({ min: 1, max: 3 }), fc.boolean())
  .chain(([first, count, named]) => {
    const sameKind = fc.constantFrom(...operations.filter((operation) => operation.kind === first.kind));
    return fc.tuple(fc.constant(first), fc.array(sameKind, { minLength: count - 1, maxLength: count - 1 }), fc.constant(named));
  })
  .chain(([first, more, named]) => {
    const all = [first, ...more];
    const aliases = all.map((_operation, index) => (all.length > 1 ? `a${index}` : undefined));
    return fc.tuple(...all.map((operation, index) => literalField(operation, aliases[index]))).map((fields) => ({
      kind: first.kind,
      query: `${first.kind === 'mutation' || named ? `${first.kind} Fuzz ` : ''}{ ${fields.join(' ')} }`,
      variables: undefined,
      operationName: named ? 'Fuzz' : undefined,
      rootKeys: all.map((operation, index) => aliases[index] ?? operation.name),
    }));
  });

/** A document with variables: declared types right or wrong, values from anywhere. */
const variableOperation: fc.Arbitrary<GeneratedOperation> = operationArb.chain((operation) => {
  const entries = Object.entries(operation.args);
  const declared = entries.map(([, type]) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<string>(type) },
      { weight: 1, arbitrary: fc.constantFrom('Int', 'String!', '[String]', 'Boolean', 'JSON', 'Nope', 'ID!') },
    ),
  );
  const values = entries.map(([name, type]) =>
    fc.oneof(
      { weight: 4, arbitrary: valueFor(name, type) },
      { weight: 1, arbitrary: anyJsonValue },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  );
  return fc
    .tuple(
      fc.tuple(...declared),
      fc.tuple(...values),
      selectionFor(operation.returns, 1),
      fc.oneof(fc.constant('Fuzz'), fc.constant(undefined), anyJsonValue),
    )
    .map(([types, vals, selection, operationName]) => {
      const definitions = entries.map(([name], index) => `$${name}: ${types[index]}`);
      const uses = entries.map(([name]) => `${name}: $${name}`);
      const variables: Record<string, unknown> = {};
      entries.forEach(([name], index) => {
        if (vals[index] !== undefined) variables[name] = vals[index];
      });
      return {
        kind: operation.kind,
        query: `${operation.kind} Fuzz${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} { ${operation.name}${uses.length > 0 ? `(${uses.join(', ')})` : ''}${selection} }`,
        variables,
        operationName,
        rootKeys: [operation.name],
      };
    });
});

/** Texts that are hardly GraphQL: syntax junk, truncations, deep nesting, huge documents, fragment cycles. */
export const junkQuery: fc.Arbitrary<string> = fc.oneof(
  nastyString,
  fc.constantFrom(...injectionStrings),
  // Every proper prefix of a document misses its closing brace: a syntax error, never an executed mutation.
  literalOperation.chain((operation) => fc.nat({ max: operation.query.length - 1 }).map((cut) => operation.query.slice(0, cut))),
  fc.constantFrom(10, 100, 1000, 5000).map((depth) => `{ ${'me { '.repeat(depth)}id${' }'.repeat(depth)} }`),
  fc.constantFrom(10, 100, 1000).map((depth) => `{ thing(tuid: "GQ-1") { ${'location { '.repeat(depth)}lat${' }'.repeat(depth)} } }`),
  fc
    .constantFrom(300, 3000, 20_000)
    .map((count) => `{ ${Array.from({ length: count }, (_, index) => `f${index}: __typename`).join(' ')} }`),
  fc
    .constantFrom(25, 400)
    .map((count) => `{ ${Array.from({ length: count }, (_, index) => `t${index}: thing(tuid: "GQ-1") { tuid }`).join(' ')} }`),
  fc.constant('query A { ...F } fragment F on Query { ...G } fragment G on Query { ...F }'),
  fc.constant('{ groups { ...F } } fragment F on Group { groupId ...F }'),
  fc.constant('query A { me { id } } query A { me { id } }'),
  fc.constant('query A { me { id } } mutation FuzzNeverNamed { createGroup(groupId: "gq-never") { groupId } }'),
  fc.constant('subscription { messages }'),
  fc.constant('{ __schema { types { name fields { name } } } }'),
  fc.constant('{ __type(name: "Mutation") { fields { name } } }'),
  fc.constant(`{ thing(tuid: "${'\\u0041'.repeat(3000)}") { tuid } }`),
  fc.constant(`query Q(${Array.from({ length: 500 }, (_, index) => `$v${index}: Int`).join(', ')}) { me { id } }`),
  fc.constant('{ me { id } }'.repeat(2000)),
  fc.constant(`{ catalog ${'@skip(if: false) '.repeat(2000)} }`),
  fc.constant(`{ thing(tuid: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { tuid } }`),
  fc.constant(`mutation { sendCommands(tuid: "GQ-1", commands: [${'{a: '.repeat(2000)}1${'}'.repeat(2000)}]) { tuid } }`),
);

/** The operations the requests carry: more with literal arguments than with variables. */
export const generatedOperation = fc.oneof({ weight: 3, arbitrary: literalOperation }, { weight: 2, arbitrary: variableOperation });
