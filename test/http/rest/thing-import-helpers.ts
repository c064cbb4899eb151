/** What the import tests share: a server per file with a rival organization, and the import call. */
import { before, after } from 'node:test';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

export interface ImportContext {
  server: TestApp;
  rest: RestClient;
  rival: RestClient;
}

export function importTestServer(target: StoreTarget): ImportContext {
  const context = {} as ImportContext;
  before(async () => {
    context.server = await startTestApp({ DATABASE_URL: await target.createUrl() });
    context.rest = new RestClient(context.server);
    const deps = { store: context.server.app.store, clock: context.server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const created = await createApiClient(deps, { organizationId: 'rival', name: 'rival', clientId: 'rival-client' });
    context.rival = new RestClient(context.server, { client_id: created.client.clientId, client_secret: created.clientSecret });
  });
  after(() => context.server?.stop());
  return context;
}

/** POSTs a file to /things/import with the query given (`dry_run=true`, ...), as CSV unless said otherwise. */
export function importFile(context: ImportContext, file: string, query = '', type = 'text/csv', as?: RestClient) {
  return (as ?? context.rest).request('POST', `/things/import${query ? `?${query}` : ''}`, {
    rawBody: file,
    headers: { 'content-type': type },
  });
}

/** A plan's rows as [row, tuid, action] for short assertions. */
export function actionsOf(body: { data: { rows: { row: number; tuid: string; action: string }[] } }) {
  return body.data.rows.map((r) => [r.row, r.tuid, r.action]);
}
