/**
 * The OpenAPI document works with the tools it is meant for (issue 19): Redocly's recommended rules find nothing,
 * every operation has a unique operationId and every status it answers documented, and each operation's main
 * success and error responses, received over real HTTP, match the document (RestClient checks every response).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { restRoutePaths } from '../../../src/http/route-table.js';
import { cleanupStores } from '../../helpers/databases.js';
import { compileContract, type OpenApiDocument } from '../../helpers/openapi-contract.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const run = promisify(execFile);
const redocly = new URL('../../../node_modules/.bin/redocly', import.meta.url).pathname;

describe('the OpenAPI document', () => {
  let server: TestApp;
  let document: OpenApiDocument & {
    paths: Record<string, Record<string, { operationId: string; requestBody?: unknown; security?: unknown[] }>>;
  };
  before(async () => {
    server = await startTestApp();
    document = (await (await fetch(server.url('/openapi.json'))).json()) as typeof document;
  });
  after(() => server?.stop());

  test("Redocly's recommended rules: 0 errors, 0 warnings (offline, no telemetry)", async () => {
    const directory = await mkdtemp(join(tmpdir(), 'thingdesk-openapi-'));
    try {
      const file = join(directory, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' };
      const result = await run(redocly, ['lint', '--extends=recommended', '--format=json', file], {
        env,
        maxBuffer: 16 * 1024 * 1024,
      }).catch((error: { stdout: string; stderr: string }) => error);
      const report = JSON.parse(result.stdout) as {
        totals: { errors: number; warnings: number };
        problems: { ruleId: string; message: string }[];
      };
      assert.deepEqual(
        report.totals,
        { errors: 0, warnings: 0, ignored: 0 },
        report.problems.map((p) => `${p.ruleId}: ${p.message}`).join('\n'),
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  test('one server, REST_BASE_PATH; every route of the route table has an operation with a unique operationId', async () => {
    assert.deepEqual(
      document.servers.map((s) => s.url),
      [server.config.restBasePath],
    );
    const routes = await restRoutePaths(server.config);
    const documented = Object.keys(document.paths).map((path) => server.config.restBasePath + path.replace(/\{(\w+)\}/g, ':$1'));
    assert.deepEqual([...new Set(documented)].sort(), routes);
    const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    assert.ok(
      ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z]+$/.test(id)),
      ids.join(),
    );
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
  });

  test('every operation documents what any route of its kind can answer, each with a JSON schema and an example; request bodies too', () => {
    for (const [path, methods] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(methods)) {
        const statuses = Object.keys((operation as unknown as { responses: object }).responses);
        const body = (operation.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)?.content?.[
          'application/json'
        ];
        if (operation.requestBody) assert.ok(body?.example !== undefined, `${method} ${path}: the request body has an example`);
        const isPublic = Array.isArray(operation.security) && operation.security.length === 0;
        const expected = [
          '200',
          '429',
          '500',
          '503',
          ...(isPublic ? [] : ['401']),
          ...(operation.requestBody ? ['400', '413', '415'] : []),
        ];
        for (const status of expected) assert.ok(statuses.includes(status), `${method} ${path}: ${status} in ${statuses.join()}`);
        for (const [status, response] of Object.entries(
          (operation as unknown as { responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }).responses,
        )) {
          // JSON, or (an export's 200) each media type it streams, each with its own schema and example.
          const content = (response.content ?? {}) as Record<string, { schema?: unknown; example?: unknown }>;
          const types = content['application/json'] ? ['application/json'] : Object.keys(content);
          assert.ok(types.length > 0, `${method} ${path} ${status} has content`);
          for (const type of types) {
            const media = content[type]!;
            assert.ok(media.schema, `${method} ${path} ${status} ${type} has a schema`);
            assert.ok(
              media.example !== undefined,
              `${method} ${path} ${status} ${type} has an example (Redocly checks it against the schema)`,
            );
          }
        }
      }
    }
  });

  test('each operation: its main success and error answers over HTTP match the document', async () => {
    const rest = new RestClient(server);
    const contract = compileContract(document);
    await publishUplinks(server, summaryUplinks(Math.floor(Date.now() / 1000) - 60));
    const exercised = new Map<string, Set<number>>();
    const call = async (method: string, path: string, body?: unknown, options: { auth?: boolean } = {}) => {
      // RestClient fails on any answer outside the document; this records which operations answered what.
      const response = await rest.request(method, path, { ...options, ...(body !== undefined && { body }) });
      const id = contract.operationOf(method, path)!;
      assert.ok(id, `${method} ${path} is documented`);
      exercised.set(id, (exercised.get(id) ?? new Set()).add(response.status));
      return response;
    };
    const tuid = summaryUplinks(0)[0]!.tsmTuid as string;
    await call('POST', '/auth/client-token', { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' }, { auth: false });
    await call('POST', '/auth/client-token', { client_id: 'acme-client', client_secret: 'wrong-secret-but-long-enough' }, { auth: false });
    await call('GET', '/things');
    await call('GET', '/things?limit=0');
    await call('GET', `/things/${tuid}`);
    await call('GET', '/things/NO-SUCH-THING');
    await call('GET', `/things/${tuid}/messages?limit=5`);
    await call('GET', `/things/${tuid}/messages`);
    await call('GET', `/things/${tuid}/messages/export?format=csv&messageid=1110`);
    await call('GET', `/things/${tuid}/messages/export?format=xlsx`);
    await call('GET', '/groups/unassigned/messages/export');
    await call('GET', '/groups/no-such-group/messages/export');
    await call('GET', `/things/${tuid}/series?tsmId=12100&field=temp&from=0&to=100000`);
    await call('GET', `/things/${tuid}/series?tsmId=12100&field=temp&from=10&to=0`);
    await call('GET', '/groups/unassigned/series?tsmId=12100&field=temp&from=0&to=100000&bucket=raw');
    await call('GET', '/groups/no-such-group/series?tsmId=12100&field=temp&from=0&to=100000');
    await call('POST', `/things/${tuid}/commands`, [
      { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 },
    ]);
    await call('POST', `/things/${tuid}/commands`, [{ tsmId: 1 }]);
    await call('GET', `/things/${tuid}/commands`);
    await call('GET', '/things/NO-SUCH-THING/commands');
    await call('POST', `/things/${tuid}/installations`, { installation_status: 'installed' });
    await call('POST', `/things/${tuid}/installations`, { installation_status: 'new' });
    await call('GET', `/things/${tuid}/installations`);
    await call('GET', '/things/NO-SUCH-THING/installations');
    await call('POST', '/groups', { group_id: 'contract', group_description: 'Contract test' });
    await call('POST', '/groups', { group_id: 'contract' });
    await call('GET', '/groups');
    await call('GET', '/groups?limit=0');
    await call('POST', '/groups/contract/rename', { group_id: 'contract-2' });
    await call('POST', '/groups/no-such-group/rename', { group_id: 'x' });
    await call('GET', '/groups/contract-2/things');
    await call('GET', '/groups/no-such-group/things');
    await call('POST', `/things/${tuid}/group`, { group_id: 'contract-2' });
    await call('POST', `/things/${tuid}/group`, { group_id: 'no-such-group' });
    await call('GET', `/things/${tuid}/group`);
    await call('GET', '/things/NO-SUCH-THING/group');
    await call('DELETE', '/groups/contract-2');
    await call('DELETE', '/groups/contract-2');
    await call('GET', '/catalog');
    await call('GET', '/catalog', undefined, { auth: false });
    await call('GET', '/catalog/1110');
    await call('GET', '/catalog/99999');
    await call('GET', `/things/${tuid}/alerts`);
    await call('GET', '/things/NO-SUCH-THING/alerts');
    await call('GET', '/things/alerts');
    await call('GET', '/things/alerts', undefined, { auth: false });
    await call('GET', '/things/alerts/count');
    await call('GET', '/things/alerts/count', undefined, { auth: false });
    await call('GET', '/organization');
    await call('GET', '/organization', undefined, { auth: false });
    await call('GET', '/fleet/health');
    await call('GET', '/fleet/health?days=0');
    const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    for (const id of ids) {
      const statuses = [...(exercised.get(id) ?? [])];
      assert.ok(statuses.includes(200) && statuses.some((status) => status >= 400), `${id}: answered ${statuses.join() || 'nothing'}`);
    }
  });
});
