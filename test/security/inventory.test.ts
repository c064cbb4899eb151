import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

/**
 * OWASP API9 (improper inventory management): every endpoint of seed 000 and every addition of SPEC section 3 is
 * served under REST_BASE_PATH and documented in the OpenAPI document, and the document lists nothing else.
 */
const endpoints: [method: string, path: string][] = [
  ['post', '/auth/client-token'],
  ['get', '/things/{tuid}'],
  ['get', '/things/{tuid}/messages'],
  ['post', '/things/{tuid}/commands'],
  ['get', '/things/{tuid}/commands'],
  ['get', '/things/{tuid}/alerts'],
  ['post', '/things/{tuid}/installations'],
  ['get', '/things/{tuid}/installations'],
  ['post', '/groups'],
  ['get', '/groups'],
  ['post', '/things/{tuid}/group'],
  ['get', '/groups/{groupid}/things'],
  ['delete', '/groups/{groupid}'],
  // SPEC section 3 additions.
  ['get', '/things/{tuid}/group'],
  ['post', '/groups/{groupid}/rename'],
  ['get', '/things'],
  ['get', '/things/alerts'],
  ['get', '/things/alerts/count'],
  ['get', '/catalog'],
  ['get', '/catalog/{tsmId}'],
  // SPEC section 9 additions.
  ['get', '/things/{tuid}/messages/export'],
  ['get', '/groups/{groupid}/messages/export'],
  ['get', '/things/{tuid}/series'],
  ['get', '/groups/{groupid}/series'],
  ['get', '/organization'],
  // SPEC section 10: the studio's fleet overview.
  ['get', '/fleet/health'],
  // SPEC section 16: the operators' work.
  ['get', '/alerts'],
  ['post', '/alerts/{id}/acknowledge'],
  ['post', '/alerts/acknowledge'],
  ['get', '/gateways'],
  ['get', '/gateways/{tuid}'],
  ['post', '/things/bulk'],
  // SPEC section 12: names, labels, import and export.
  ['patch', '/things/{tuid}'],
  ['get', '/things/export'],
  ['post', '/things/import'],
  ['post', '/mqtt-credentials/import'],
  // SPEC section 14: the audit log.
  ['get', '/audit'],
  ['get', '/audit/verify'],
  ['get', '/audit/export'],
  // SPEC section 11: webhooks.
  ['post', '/webhooks'],
  ['get', '/webhooks'],
  ['get', '/webhooks/{id}'],
  ['patch', '/webhooks/{id}'],
  ['delete', '/webhooks/{id}'],
  ['post', '/webhooks/{id}/rotate-secret'],
  ['post', '/webhooks/{id}/test'],
  ['get', '/webhooks/{id}/deliveries'],
  ['post', '/webhooks/{id}/deliveries/{deliveryId}/replay'],
  ['post', '/webhooks/{id}/replay'],
  // SPEC section 13: alert rules.
  ['post', '/alert-rules'],
  ['get', '/alert-rules'],
  ['get', '/alert-rules/{id}'],
  ['patch', '/alert-rules/{id}'],
  ['delete', '/alert-rules/{id}'],
  // SPEC section 13: notification channels, and the built-in alerts' channels.
  ['post', '/notification-channels'],
  ['get', '/notification-channels'],
  ['get', '/notification-channels/{id}'],
  ['patch', '/notification-channels/{id}'],
  ['delete', '/notification-channels/{id}'],
  ['post', '/notification-channels/{id}/test'],
  ['get', '/notification-channels/{id}/deliveries'],
  ['patch', '/organization'],
];

describe('API inventory', () => {
  let server: TestApp;
  let documented: Set<string>;
  before(async () => {
    server = await startTestApp();
    const doc = (await (await fetch(server.url('/openapi.json'))).json()) as { paths: Record<string, Record<string, unknown>> };
    documented = new Set(
      Object.entries(doc.paths).flatMap(([path, methods]) =>
        Object.keys(methods).map((method) => `${method} ${path.replace(server.config.restBasePath, '')}`),
      ),
    );
  });
  after(() => server?.stop());

  test('every endpoint is documented, and nothing undocumented is', () => {
    const expected = new Set(endpoints.map(([method, path]) => `${method} ${path}`));
    assert.deepEqual(
      [...expected].filter((e) => !documented.has(e)),
      [],
      'missing from OpenAPI',
    );
    assert.deepEqual(
      [...documented].filter((d) => !expected.has(d)),
      [],
      'in OpenAPI but not in the inventory',
    );
  });

  test('every endpoint is served (without a token it answers 401 or, for the token endpoint, 400 — never a 404 route miss)', async () => {
    for (const [method, path] of endpoints) {
      const url = server.url(
        `${server.config.restBasePath}${path.replace('{tuid}', 'T-1').replace('{groupid}', 'g-1').replace('{tsmId}', '1110').replace('{id}', '1')}`,
      );
      const response = await fetch(url, {
        method: method.toUpperCase(),
        headers: method === 'get' || method === 'delete' ? {} : { 'content-type': 'application/json' },
        body: method === 'get' || method === 'delete' ? undefined : '{}',
      });
      assert.ok([400, 401].includes(response.status), `${method} ${path}: ${response.status}`);
    }
  });
});
