/**
 * What the GraphQL read-operation tests share: a server whose Acme has the summary things T-1, T-2 and X-3 (their
 * uplinks at t0) and alert periods written relative to `now`.
 */
import { ManualClock } from '../../../src/domain/clock.js';
import type { StoreTarget } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { signInAs } from '../../helpers/graphql-users.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';

export const t0 = 1_790_000_000;
export const now = Date.UTC(2026, 2, 30, 12, 0, 0);
export const hour = 3600_000;

export async function startReadsServer(target: StoreTarget): Promise<TestApp> {
  return startTestApp({ DATABASE_URL: await target.createUrl(), ALERT_TIMEZONE: 'Europe/Helsinki' }, { clock: new ManualClock(now) });
}

/** Signs in a Viewer and a second Manager, and stores the things and alerts the tests read. */
export async function seedReads(server: TestApp): Promise<{ rest: RestClient; viewer: GraphqlClient; manager: GraphqlClient }> {
  const rest = new RestClient(server);
  const viewer = (await signInAs(server, 'Viewer', { email: 'viewer@acme.test' })).client;
  const manager = (await signInAs(server, 'Manager', { email: 'second-manager@acme.test' })).client;
  await publishUplinks(server, summaryUplinks(t0));
  // Alert periods written by hand (the engine's own writes are tested with the engine).
  const alerts = server.app.store.alerts;
  await alerts.open({ organizationId: 'acme', tuid: 'T-1', alertType: 'gateway connection lost', openedAt: now - 5 * hour });
  await alerts.close('T-1', 'gateway connection lost', now - 4 * hour);
  await alerts.open({ organizationId: 'acme', tuid: 'T-1', alertType: 'battery low', openedAt: now - 2 * hour });
  await alerts.open({ organizationId: 'acme', tuid: 'T-2', alertType: 'device connection lost', openedAt: now - hour });
  return { rest, viewer, manager };
}
