/**
 * What the things list and thing page tests share: 120 things in two groups, some installed and some alerting, and
 * a thing with a month of readings. Data goes in through the real interfaces (MQTT uplinks, GraphQL).
 */
import { after, before } from 'node:test';
import type { StoreTarget } from '../helpers/databases.js';
import type { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { useStudio, type Studio } from './studio-test-helpers.js';

export const nowS = Math.floor(Date.now() / 1000);
export const tuids = Array.from({ length: 120 }, (_, index) => `LST-${String(index).padStart(3, '0')}`);

export interface ThingsStudio {
  studio: Studio;
  manager: GraphqlClient;
  viewer: { email: string; password: string };
}

/** Registers, inside a describe, the studio on `target` with the things seeded; the context is filled before the first test. */
export function useSeededThings(target: StoreTarget): ThingsStudio {
  const studio = useStudio({ store: target });
  after(closeMqttClients);
  const context = { studio } as ThingsStudio;
  before(async () => {
    context.manager = (await signInAs(studio.server, 'Manager')).client;
    context.viewer = await signInAs(studio.server, 'Viewer');
    const { manager } = context;
    // 120 things heard through two gateways; every seventh reports a low battery (an alert opens on ingest).
    await publishUplinks(
      studio.server,
      tuids.map((tuid, index) => ({ tsmId: 1110, tsmEv: 10, tsmTs: nowS - index * 60, tsmTuid: tuid, batl: index % 7 === 0 ? 5 : 90 })),
      'GW-A',
    );
    // A thing with readings every two hours over the last month, for the charts.
    await publishUplinks(
      studio.server,
      Array.from({ length: 360 }, (_, index) => ({
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: nowS - 1000 - index * 7200, // away from the windows' edges, which the page and the test take seconds apart
        tsmTuid: 'CHART-1',
        temp: 20 + Math.sin(index / 6) * 3,
      })),
      'GW-B',
    );
    for (const groupId of ['north', 'south']) {
      dataOf(await manager.request('mutation C($groupId: String!) { createGroup(groupId: $groupId) { groupId } }', { groupId }));
    }
    for (const tuid of tuids.slice(0, 30)) {
      dataOf(await manager.request('mutation A($tuid: ID!) { assignThingToGroup(tuid: $tuid, groupId: "north") { tuid } }', { tuid }));
    }
    for (const tuid of tuids.filter((_, index) => index % 3 === 0)) {
      dataOf(
        await manager.request('mutation S($tuid: ID!) { setInstallationStatus(tuid: $tuid, status: "installed") { tuid } }', { tuid }),
      );
    }
  });
  return context;
}
