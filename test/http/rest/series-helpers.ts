/** What the series tests share: a server whose thing S-1 has readings over two days, before and after joining group north. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

// A day start (UTC), so hours and days of the fixture are easy to read.
export const day = 1_790_035_200;
export const hour = 3600;
export const reading = (tuid: string, tsmTs: number, fields: Record<string, unknown>) => ({
  tsmId: 12100,
  tsmEv: 10,
  tsmTs,
  tsmTuid: tuid,
  ...fields,
});

export interface SeriesTestContext {
  server: TestApp;
  rest: RestClient;
  /** A client of another organization, `rival`. */
  rival: RestClient;
  /** The raw horizon the server is told (Unix seconds), null for none; a test sets it as it needs. */
  horizon: number | null;
}

/** Registers, inside a describe, a fresh server on the target with the fixture; the context is filled before the first test. */
export function seriesTestServer(target: StoreTarget): SeriesTestContext {
  const context = { horizon: null } as SeriesTestContext;
  before(async () => {
    // The raw horizon port, as the retention work will wire it.
    context.server = await startTestApp({ DATABASE_URL: await target.createUrl() }, { rawHorizon: async () => context.horizon });
    const { server } = context;
    const rest = new RestClient(server);
    context.rest = rest;
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const client = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
    context.rival = new RestClient(server, { client_id: client.client.clientId, client_secret: client.clientSecret });

    // S-1, in no group: two readings in hour 0, one in hour 1 (a catalog field, an unknown one, a nested one).
    await publishUplinks(server, [
      reading('S-1', day + 60, { temp: 20, humd: 40, extra: 7, probe: { depth: 1.5, label: 'x' }, flag: true }),
      // A long message: raw reads parse it rather than reading the member in SQL (rawReadOf, directReadMaxBodyLength).
      reading('S-1', day + 120, { temp: 22, humd: 42, extra: 9, note: 'n'.repeat(400) }),
      reading('S-1', day + hour + 30, { temp: 25, lght: 'bright' }),
    ]);
    // Redelivery of the same bytes: not stored again, not counted again.
    await publishUplinks(server, [
      reading('S-1', day + 60, { temp: 20, humd: 40, extra: 7, probe: { depth: 1.5, label: 'x' }, flag: true }),
    ]);
    // S-1 joins group north; its next message counts for north, the earlier ones stay unassigned.
    assert.equal((await rest.post('/groups', { group_id: 'north' })).status, 200);
    assert.equal((await rest.post('/things/S-1/group', { group_id: 'north' })).status, 200);
    await publishUplinks(server, [reading('S-1', day + 2 * hour + 10, { temp: 30 }), reading('S-2', day + 2 * hour + 20, { temp: 10 })]);
    // A late message, older than everything in hour 0, and one on the next day.
    await publishUplinks(server, [reading('S-1', day + 5, { temp: 18 }), reading('S-1', day + 86_400 + 10, { temp: 5 })]);
  });
  after(() => context.server?.stop());
  return context;
}
