/** What the REST group tests share: a server per file with Acme's things G-1..G-5 and a rival organization. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

export const path = (id: string) => encodeURIComponent(id);

export interface GroupTestContext {
  server: TestApp;
  rest: RestClient;
  /** A client of another organization, `rival`. */
  rival: RestClient;
}

/**
 * Registers, inside a describe, a fresh server on the target with the things G-1..G-5 (unassigned, status new)
 * and a rival organization; the context is filled before the first test. Each file gets its own server, so its
 * tests share state only with each other.
 */
export function groupTestServer(target: StoreTarget): GroupTestContext {
  const context = {} as GroupTestContext;
  before(async () => {
    context.server = await startTestApp({ DATABASE_URL: await target.createUrl() });
    context.rest = new RestClient(context.server);
    const deps = { store: context.server.app.store, clock: context.server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
    context.rival = new RestClient(context.server, { client_id: created.client.clientId, client_secret: created.clientSecret });
    await publishUplinks(
      context.server,
      ['G-1', 'G-2', 'G-3', 'G-4', 'G-5'].map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: tuid, uptime: 1 })),
    );
  });
  after(() => context.server?.stop());
  return context;
}

/** The calls every group test makes, as the context's Acme client unless another is given. */
export function groupCalls(context: GroupTestContext) {
  return {
    createGroup: (group_id: unknown, extra: Record<string, unknown> = {}, as = context.rest) => as.post('/groups', { group_id, ...extra }),
    assign: (tuid: string, group_id: unknown, as = context.rest) => as.post(`/things/${tuid}/group`, { group_id }),
    groupOf: async (tuid: string) => (await context.rest.get(`/things/${tuid}/group`)).body.data.group_id as string,
  };
}

export async function assertFieldRefused(
  response: { status: number; text: string; body: { code: string; errors: { field: string }[] } },
  field: string,
  what: string,
) {
  assert.equal(response.status, 400, `${what}: ${response.text}`);
  assert.equal(response.body.code, 'VALIDATION_FAILED', what);
  assert.equal(response.body.errors[0]?.field, field, `${what}: ${response.text}`);
}
