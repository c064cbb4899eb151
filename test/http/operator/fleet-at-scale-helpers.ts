/** What the fleet-at-scale tests (SPEC section 16) share: one platform with two gateways and four things, and the things list's TUIDs. */
import assert from 'node:assert/strict';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';
import { hear, manualEngineEnv, minute } from '../../domain/alerts/alert-test-helpers.js';

export const start = Date.UTC(2026, 0, 10, 8, 0, 0);
export const s = (ms: number) => Math.floor(ms / 1000);

export interface Fleet {
  server: TestApp;
  viewer: SignedInUser;
  installer: SignedInUser;
  manager: SignedInUser;
}

/**
 * GW-1 carries T-1 (batl 10) and T-2 (batl 50), heard at `start`; GW-2 carries T-3, heard 11 minutes later;
 * NEVER-1 was claimed by a call and never heard. The group `north` exists; a Viewer, an Installer and a Manager are
 * signed in. `clock` must stand at `start`.
 */
export async function startFleet(target: StoreTarget, clock: ManualClock): Promise<Fleet> {
  const server = await startTestApp({ ...manualEngineEnv, DATABASE_URL: await target.createUrl() }, { clock });
  const rest = () => new RestClient(server);
  await publishUplinks(
    server,
    [
      { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'T-1', batl: 10 },
      { tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'T-2', batl: 50 },
    ],
    'GW-1',
  );
  await server.app.alertEngine.settled();
  clock.advance(11 * minute);
  await hear(server, 'GW-2', ['T-3']);
  assert.equal((await rest().post('/things/NEVER-1/installations', { installation_status: 'installed' })).status, 200);
  assert.equal((await rest().post('/groups', { group_id: 'north' })).status, 200);
  const [viewer, installer, manager] = [
    await signInAs(server, 'Viewer'),
    await signInAs(server, 'Installer'),
    await signInAs(server, 'Manager'),
  ];
  return { server, viewer, installer, manager };
}

/** The TUIDs of GET /things with `query`, in the order the list gives them. */
export async function thingTuids(server: TestApp, query: string): Promise<string[]> {
  const response = await new RestClient(server).get(`/things${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.things.map((thing: { tuid: string }) => thing.tuid);
}
