/**
 * Fragment graphs as an adversary builds them (issue 12, item 1): fragments that spread later fragments several
 * times each, so that a document of a few hundred bytes expands to millions of fields. The size limits must be
 * computed without expanding (each fragment measured once), agree with a naive expansion wherever that is
 * affordable, and refuse every oversized document at once, signed in or not, while the server stays responsive.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { Kind, parse, visit, type DocumentNode, type FragmentDefinitionNode, type SelectionSetNode } from 'graphql';
import { DocumentCost, queryLimits, type SelectionCost } from '../../src/http/graphql/validation-rules.js';
import { cleanupStores } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { assertProperty } from './fuzz-settings.js';

after(cleanupStores);

/** Fragment i spreads `spreads[i]` (indices of later fragments) and selects `fields[i]` leaf fields. */
interface FragmentGraph {
  spreads: number[][];
  fields: number[];
}

const fragmentGraph: fc.Arbitrary<FragmentGraph> = fc
  .record({ depth: fc.integer({ min: 1, max: 40 }), width: fc.integer({ min: 1, max: 6 }) })
  .chain(({ depth, width }) =>
    fc.record({
      spreads: fc.tuple(
        ...Array.from({ length: depth }, (_, i) =>
          // Each fragment spreads the next one (so all are used) and up to width - 1 later ones at random.
          i === depth - 1
            ? fc.constant<number[]>([])
            : fc.array(fc.integer({ min: i + 1, max: depth - 1 }), { maxLength: width - 1 }).map((more) => [i + 1, ...more]),
        ),
      ),
      fields: fc.tuple(...Array.from({ length: depth }, () => fc.integer({ min: 0, max: 2 }))),
    }),
  );

function documentOf(graph: FragmentGraph): string {
  const fragments = graph.spreads.map((spreads, i) => {
    const selections = [...spreads.map((target) => `...F${target}`), ...Array.from({ length: graph.fields[i]! }, () => '__typename')];
    // A fragment needs at least one selection to parse.
    if (selections.length === 0) selections.push('__typename');
    return `fragment F${i} on Query { ${selections.join(' ')} }`;
  });
  return `query Bomb { ...F0 } ${fragments.join(' ')}`;
}

/** The cost by expanding every spread, given up (undefined) once it has walked `budget` selections. */
function naiveCost(document: DocumentNode, budget: number): SelectionCost | undefined {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  let walked = 0;
  const walk = (set: SelectionSetNode): SelectionCost => {
    // The graphs select no introspection: those parts of the cost stay zero.
    const cost = { depth: 0, fields: 0, roots: 0, lists: 0, introspectionDepth: 0, introspectionFields: 0, introspectionLists: 0 };
    for (const selection of set.selections) {
      if (++walked > budget) throw new RangeError('budget');
      const inner =
        selection.kind === Kind.FIELD
          ? { depth: 1, fields: 1, roots: 1 }
          : walk(selection.kind === Kind.INLINE_FRAGMENT ? selection.selectionSet : fragments.get(selection.name.value)!.selectionSet);
      cost.depth = Math.max(cost.depth, inner.depth);
      cost.fields += inner.fields;
      cost.roots += inner.roots;
    }
    return cost;
  };
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION)!;
  try {
    return walk(operation.selectionSet);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

function selectionCount(document: DocumentNode): number {
  let count = 0;
  visit(document, { Field: () => void count++, FragmentSpread: () => void count++, InlineFragment: () => void count++ });
  return count;
}

describe('GraphQL fragment graphs (width x depth)', () => {
  test('the limits walk each selection of the document at most once, and agree with a naive expansion', async () => {
    await assertProperty(
      fc.asyncProperty(fragmentGraph, async (graph) => {
        const document = parse(documentOf(graph));
        const costs = new DocumentCost(document);
        const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION)!;
        const cost = costs.of(operation.selectionSet);
        for (const name of costs.fragmentNames()) costs.fragment(name);
        assert.ok(costs.visits <= selectionCount(document), `${costs.visits} visits for ${selectionCount(document)} selections`);
        const naive = naiveCost(document, 200_000);
        if (naive) assert.deepEqual(cost, naive);
      }),
      200,
    );
  });

  describe('through the server', () => {
    let server: TestApp;
    let signedIn: GraphqlClient;
    before(async () => {
      server = await startTestApp();
      signedIn = new GraphqlClient(server);
      await signedIn.login();
    });
    after(() => server.stop());

    test('every generated document is answered (refused when oversized) without stalling the server', async () => {
      await assertProperty(
        fc.asyncProperty(fragmentGraph, fc.boolean(), async (graph, anonymous) => {
          const text = documentOf(graph);
          const expected = naiveCost(parse(text), 200_000);
          // The server runs in this process: its CPU time for the request, which a busy machine does not stretch.
          const started = process.cpuUsage();
          const [response, health] = await Promise.all([
            signedIn.request(text, undefined, anonymous ? { token: null } : {}),
            fetch(server.url('/healthz')),
          ]);
          const { user, system } = process.cpuUsage(started);
          const cpuMs = (user + system) / 1000;
          assert.equal(health.status, 200);
          // Generous on purpose: the naive walk took seconds on 25 levels and doubles with each one.
          assert.ok(cpuMs < 2000, `${cpuMs.toFixed(0)} ms of CPU for ${text.length} bytes`);
          const errors = response.body.errors ?? [];
          for (const error of errors) assert.equal(error.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(error));
          const withinLimits =
            expected !== undefined &&
            expected.depth <= queryLimits.maxDepth &&
            expected.fields <= queryLimits.maxFields &&
            expected.roots <= queryLimits.maxRootFields;
          if (withinLimits) assert.deepEqual(response.body.data, { __typename: 'Query' }, JSON.stringify(response.body));
          else
            assert.ok(
              errors.some((error) => /selects|nested|top-level fields/.test(error.message)),
              JSON.stringify(response.body).slice(0, 500),
            );
        }),
        60,
      );
    });

    test('the 25-level doubling bomb of the report is refused at once, to a stranger, naming the fragment', async () => {
      const levels = 25;
      const fragments = Array.from({ length: levels }, (_, i) =>
        i === levels - 1 ? `fragment F${i} on Query { __typename }` : `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
      );
      const text = `{ ...F0 } ${fragments.join(' ')}`;
      const response = await signedIn.request(text, undefined, { token: null });
      const messages = (response.body.errors ?? []).map((error) => error.message);
      assert.ok(
        messages.includes(`The operation selects more than 1000000 fields; at most ${queryLimits.maxFields} are allowed.`),
        messages.join('\n'),
      );
      assert.ok(
        messages.includes(`The fragment F0 selects more than 1000000 fields; at most ${queryLimits.maxFields} are allowed.`),
        messages.join('\n'),
      );
      assert.equal(response.body.data, undefined);
    });
  });
});
