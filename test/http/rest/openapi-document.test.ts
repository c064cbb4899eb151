/**
 * The OpenAPI document works with the tools it is meant for (issue 19): Redocly's recommended rules find nothing,
 * every operation has a unique operationId and every status it answers documented. Each operation's answers over real
 * HTTP are checked against the document in openapi-answers.test.ts.
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
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients } from '../../helpers/uplinks.js';
import { startWithDocument, type ServedDocument } from './openapi-document-helpers.js';

after(cleanupStores);
after(closeMqttClients);

const run = promisify(execFile);
const redocly = new URL('../../../node_modules/.bin/redocly', import.meta.url).pathname;

describe('the OpenAPI document', () => {
  let server: TestApp;
  let document: ServedDocument;
  before(async () => {
    ({ server, document } = await startWithDocument());
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
        // JSON, or (an import's body) each media type it reads, each with an example.
        const bodies = Object.values(
          (operation.requestBody as { content?: Record<string, { example?: unknown }> } | undefined)?.content ?? {},
        );
        if (operation.requestBody) {
          assert.ok(
            bodies.length > 0 && bodies.every((body) => body.example !== undefined),
            `${method} ${path}: the request body has an example`,
          );
        }
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
});
