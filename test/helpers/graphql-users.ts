import assert from 'node:assert/strict';
import { createUser } from '../../src/domain/identity/identity-service.js';
import type { Role } from '../../src/domain/identity/types.js';
import { GraphqlClient, type GraphqlResponse } from './graphql-client.js';
import type { TestApp } from './test-app.js';

/** A signed-in GraphQL client with the user behind it. */
export interface SignedInUser {
  client: GraphqlClient;
  userId: string;
  email: string;
  password: string;
}

let created = 0;

/**
 * Creates a user of `role` in an organization (default: the bootstrap organization `acme` / `Acme`) through the
 * domain, as the CLI would, and signs it in over GraphQL. E-mails are unique per call unless given.
 */
export async function signInAs(
  server: TestApp,
  role: Role,
  options: { email?: string; organizationId?: string; organizationName?: string } = {},
): Promise<SignedInUser> {
  created += 1;
  const organizationId = options.organizationId ?? 'acme';
  const email = options.email ?? `${role.toLowerCase()}-${created}@${organizationId}.test`;
  const password = `${role.toLowerCase()}-password-${created}`;
  const user = await createUser({ store: server.app.store, clock: server.app.clock }, { organizationId, email, password, role });
  const client = new GraphqlClient(server);
  const login = await client.login({ email, password, organizationName: options.organizationName ?? 'Acme' });
  assert.ok(client.accessToken, `sign-in of ${email} failed: ${JSON.stringify(login.body)}`);
  return { client, userId: user.id, email, password };
}

/**
 * Asserts that a response failed with exactly one error of `code` (and, when given, that message) and returns
 * that error for further checks.
 */
export function assertGraphqlError(
  response: GraphqlResponse,
  code: string,
  message?: string | RegExp,
): NonNullable<GraphqlResponse['body']['errors']>[number] {
  const errors = response.body.errors ?? [];
  assert.equal(errors.length, 1, `expected one ${code} error, got ${JSON.stringify(response.body)}`);
  const [error] = errors;
  assert.equal(error!.extensions?.code, code, JSON.stringify(response.body));
  if (typeof message === 'string') assert.equal(error!.message, message);
  else if (message) assert.match(error!.message, message);
  return error!;
}

/** Asserts a BAD_USER_INPUT naming exactly these fields in `extensions.errors`, in order. */
export function assertBadInput(response: GraphqlResponse, fields: string[]): void {
  const error = assertGraphqlError(response, 'BAD_USER_INPUT');
  const named = ((error.extensions?.errors ?? []) as { field: string; message: string }[]).map((problem) => problem.field);
  assert.deepEqual(named, fields, JSON.stringify(response.body));
}

/** The data of a response that must have succeeded. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- test bodies are asserted field by field
export function dataOf(response: GraphqlResponse): any {
  assert.equal(response.body.errors, undefined, JSON.stringify(response.body));
  return response.body.data;
}
