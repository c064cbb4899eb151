/** What the GraphQL administration tests share: the bootstrap Manager, signed in, who creates and revokes everything. */
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { dataOf } from '../../helpers/graphql-users.js';
import type { TestApp } from '../../helpers/test-app.js';

export async function signInBootstrapManager(server: TestApp): Promise<{ manager: GraphqlClient; managerId: string }> {
  const manager = new GraphqlClient(server);
  await manager.login();
  const managerId = dataOf(await manager.request('{ me { id } }')).me.id as string;
  return { manager, managerId };
}
