/** What the alert-work tests (SPEC section 16) share: one platform with open alert periods, and the period as GET /alerts gives it. */
import assert from 'node:assert/strict';
import type { ManualClock } from '../../../src/domain/clock.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';
import { hear, manualEngineEnv, minute } from '../../domain/alerts/alert-test-helpers.js';

export const start = Date.UTC(2026, 0, 10, 8, 0, 0);

export interface Period {
  id: number;
  tuid: string;
  alert_type: string;
  severity: string;
  rule_id: string | null;
  value: number | null;
  from: string;
  to: string | null;
  from_ts: number;
  to_ts: number | null;
  gateway_tuid: string | null;
  group_id: string;
  incident_id: string | null;
  acknowledged: { by: string; at: number; note: string | null } | null;
}

export interface AlertWork {
  server: TestApp;
  viewer: SignedInUser;
  installer: SignedInUser;
  manager: SignedInUser;
}

/**
 * GW-A carries A-1 (in group `north`), A-2 and A-3; GW-B carries B-1 (batl 5: battery low). 11 minutes later both
 * gateways are silent: five open periods, one incident per gateway. A Viewer, an Installer and a Manager are signed in.
 * `clock` must stand at `start`.
 */
export async function startAlertWork(target: StoreTarget, clock: ManualClock): Promise<AlertWork> {
  const server = await startTestApp({ ...manualEngineEnv, DATABASE_URL: await target.createUrl() }, { clock });
  const rest = () => new RestClient(server);
  await hear(server, 'GW-A', ['A-1', 'A-2', 'A-3']);
  await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'B-1', batl: 5 }], 'GW-B');
  await server.app.alertEngine.settled();
  assert.equal((await rest().post('/groups', { group_id: 'north' })).status, 200);
  assert.equal((await rest().post('/things/A-1/group', { group_id: 'north' })).status, 200);
  clock.advance(11 * minute);
  await server.app.alertEngine.evaluateSilence();
  const [viewer, installer, manager] = [
    await signInAs(server, 'Viewer'),
    await signInAs(server, 'Installer'),
    await signInAs(server, 'Manager'),
  ];
  return { server, viewer, installer, manager };
}

/** GET /alerts with `query`: its periods. A fresh client per call: tokens expire after 15 minutes of the manual clock. */
export async function listAlerts(server: TestApp, query: string): Promise<Period[]> {
  const response = await new RestClient(server).get(`/alerts${query}`);
  assert.equal(response.status, 200, response.text);
  return response.body.data.alerts;
}
