/** What the GraphQL isolation tests use to compare another organization's object with an unknown one. */
import assert from 'node:assert/strict';
import type { GraphqlClient, GraphqlResponse } from '../../helpers/graphql-client.js';

/**
 * Runs `operation` once with Acme's id and once with an id nobody has, as the rival, and asserts both answers are
 * the same once the id is swapped in the message: same code, same shape, same data.
 */
export async function assertAnswersAsUnknown(
  client: GraphqlClient,
  operation: string,
  known: string,
  unknown: string,
  code = 'NOT_FOUND',
): Promise<GraphqlResponse> {
  const foreign = await client.request(operation.replaceAll('$ID', known));
  const missing = await client.request(operation.replaceAll('$ID', unknown));
  const normalized = (response: GraphqlResponse) =>
    JSON.parse(JSON.stringify(response.body).replaceAll(known, '<id>').replaceAll(unknown, '<id>')) as unknown;
  assert.deepEqual(
    normalized(foreign),
    normalized(missing),
    `${operation}: ${JSON.stringify(foreign.body)} vs ${JSON.stringify(missing.body)}`,
  );
  assert.equal(foreign.status, missing.status);
  if (code) assert.equal(foreign.body.errors?.[0]?.extensions?.code, code, `${operation}: ${JSON.stringify(foreign.body)}`);
  return foreign;
}
