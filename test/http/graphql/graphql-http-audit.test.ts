import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { serverAudits } from 'graphql-http';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

/**
 * The GraphQL over HTTP conformance audit of the `graphql-http` package, run against the real server. Some audits
 * use introspection (`__type`), which needs a signed-in caller here (seed 001), so the audit's requests carry a
 * signed-in user's access token. Every MUST and every SHOULD has to pass; MAYs are optional.
 */
describe('GraphQL over HTTP audit (graphql-http)', () => {
  let server: TestApp;
  let signedInFetch: typeof fetch;
  before(async () => {
    server = await startTestApp();
    const client = new GraphqlClient(server);
    await client.login();
    signedInFetch = (input, init) =>
      fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${client.accessToken}` } });
  });
  after(() => server?.stop());

  test('every MUST passes', async () => {
    const audits = serverAudits({ url: () => server.url(server.config.graphqlPath), fetchFn: signedInFetch });
    const failures: string[] = [];
    let musts = 0;
    for (const audit of audits) {
      const result = await audit.fn();
      if (audit.name.startsWith('MUST')) {
        musts += 1;
        if (result.status !== 'ok') failures.push(`${audit.name}: ${result.reason}`);
      }
    }
    assert.ok(musts >= 10, `ran ${musts} MUST audits`);
    assert.deepEqual(failures, []);
  });

  test('every SHOULD passes; MAY results are reported', async (t) => {
    const audits = serverAudits({ url: () => server.url(server.config.graphqlPath), fetchFn: signedInFetch });
    const shouldFailures: string[] = [];
    const mayNotOk: string[] = [];
    for (const audit of audits) {
      if (audit.name.startsWith('MUST')) continue;
      const result = await audit.fn();
      if (result.status === 'ok') continue;
      if (audit.name.startsWith('SHOULD')) shouldFailures.push(`${audit.name}: ${result.reason}`);
      else mayNotOk.push(`${audit.name}: ${result.reason}`);
    }
    t.diagnostic(`MAY audits not ok: ${mayNotOk.length ? mayNotOk.join(' | ') : 'none'}`);
    assert.deepEqual(shouldFailures, []);
  });
});
