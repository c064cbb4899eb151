import { createUser } from '../../../src/domain/identity/identity-service.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { LiveSocket } from '../../helpers/live-socket.js';
import type { TestApp } from '../../helpers/test-app.js';

/** What the live-stream tests share: a subscription, signed-in Installers, their sockets and an uplink. */

export const messages = 'subscription($tuid: ID) { messages(tuid: $tuid) }';
const password = 'installer-password';

let userCount = 0;
/** A new Installer of Acme, signed in: its client (tokens) and user id. */
export async function signedInInstaller(server: TestApp): Promise<{ client: GraphqlClient; userId: string }> {
  const email = `installer-${++userCount}@acme.test`;
  const user = await createUser(
    { store: server.app.store, clock: server.app.clock },
    { organizationId: 'acme', email, password, role: 'Installer' },
  );
  const client = new GraphqlClient(server);
  await client.login({ email, password });
  return { client, userId: user.id };
}

export function sessionIdOf(accessToken: string): string {
  return (JSON.parse(Buffer.from(accessToken.split('.')[1]!, 'base64url').toString()) as { sid: string }).sid;
}

export async function liveSocket(server: TestApp, token: string): Promise<LiveSocket> {
  const socket = new LiveSocket(server, token);
  await socket.ready;
  return socket;
}

export const uplink = (tuid: string, ts: number) => ({ tsmId: 1110, tsmEv: 10, tsmTs: ts, tsmTuid: tuid, batl: 50 });
