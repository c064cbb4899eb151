/** What the installation status tests share: a server on a clock they move, a rival organization, and the calls they make. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { ManualClock } from '../../../src/domain/clock.js';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { InstallationStatus } from '../../../src/domain/things/thing-types.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

export const client = testBootstrap.BOOTSTRAP_CLIENT_ID;
/** The platform's clock during these tests: 500 ms past a whole second, so seconds must be floored. */
const nowMs = 1_790_000_000_500;
export const nowS = 1_790_000_000;

/** Allowed moves from `new` that bring a fresh thing to each status. */
const pathTo: Record<InstallationStatus, InstallationStatus[]> = {
  new: ['new'],
  installed: ['installed'],
  uninstalled: ['installed', 'uninstalled'],
  quarantine: ['quarantine'],
  retired: ['retired'],
};

export interface InstallationTestContext {
  server: TestApp;
  rest: RestClient;
  /** A client of another organization, `rival`. */
  rival: RestClient;
  clock: ManualClock;
}

/** Registers, inside a describe, a fresh server on the target at `nowMs`; the context is filled before the first test. */
export function installationTestServer(target: StoreTarget): InstallationTestContext {
  const context = { clock: new ManualClock(nowMs) } as InstallationTestContext;
  before(async () => {
    context.server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { clock: context.clock });
    context.rest = new RestClient(context.server);
    const deps = { store: context.server.app.store, clock: context.server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
    context.rival = new RestClient(context.server, { client_id: created.client.clientId, client_secret: created.clientSecret });
  });
  after(() => context.server?.stop());
  return context;
}

/** The calls every installation test makes, as the context's Acme client unless another is given. */
export function installationCalls(context: InstallationTestContext) {
  const setStatus = (tuid: string, status: unknown, as = context.rest) =>
    as.post(`/things/${tuid}/installations`, { installation_status: status });
  const history = (tuid: string, query = '', as = context.rest) => as.get(`/things/${tuid}/installations${query}`);
  /** A fresh thing of the caller's organization in `status`, reached by allowed moves. */
  async function thingIn(status: InstallationStatus, tuid: string): Promise<string> {
    for (const step of pathTo[status]) assert.equal((await setStatus(tuid, step)).status, 200);
    return tuid;
  }
  return { setStatus, history, thingIn };
}
