/**
 * What the GraphQL field-service tests share: Acme's things F-1..F-5, CMD-1 and CMD-2 (unassigned, status new), an
 * Installer and a Manager signed in, and a gateway subscribed to Acme's downlinks.
 */
import { ManualClock } from '../../../src/domain/clock.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { dataOf, signInAs } from '../../helpers/graphql-users.js';
import { collectMessages, connectMqtt } from '../../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

const nowMs = 1_790_000_000_500;
/** `nowMs` in whole seconds, as the API answers timestamps. */
export const nowS = 1_790_000_000;

/** A server on a manual clock at `nowMs`, which tests advance to tell their writes apart. */
export async function startFieldServiceServer(target: StoreTarget): Promise<{ server: TestApp; clock: ManualClock }> {
  const clock = new ManualClock(nowMs);
  return { server: await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock }), clock };
}

export type FieldService = Awaited<ReturnType<typeof seedFieldService>>;

/** `statusOf` reads a thing's status and group as the Manager, to check what a refused write left alone. */
export async function seedFieldService(server: TestApp) {
  const signedIn = await signInAs(server, 'Installer');
  const installer = signedIn.client;
  const installerEmail = signedIn.email;
  const manager = (await signInAs(server, 'Manager', { email: 'boss@acme.test' })).client;
  const gateway = await connectMqtt(server.mqttUrl, {
    username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
    password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
  });
  const downlinks = collectMessages(gateway);
  await gateway.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
  await publishUplinks(
    server,
    ['F-1', 'F-2', 'F-3', 'F-4', 'F-5', 'CMD-1', 'CMD-2'].map((tuid) => ({
      tsmId: 1112,
      tsmEv: 10,
      tsmTs: 1_700_000_000,
      tsmTuid: tuid,
      uptime: 5,
    })),
  );
  const statusOf = async (tuid: string) => dataOf(await manager.request(`{ thing(tuid: "${tuid}") { installationStatus groupId } }`)).thing;
  return { installer, installerEmail, manager, downlinks, statusOf };
}
