/**
 * A typed TypeScript client from openapi.json (issue 19): openapi-typescript generates the types, openapi-fetch
 * is the client, and tsc compiles a short program that signs in and reads a thing; the program then runs against
 * the server. A program that passes a wrong type fails to compile, so the types are real.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { cleanupStores } from '../../helpers/databases.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));

const program = `import createClient from 'openapi-fetch';
import type { paths } from './thingdesk-api.js';

const client = createClient<paths>({ baseUrl: process.env.THINGDESK_URL! });
const signedIn = await client.POST('/auth/client-token', { body: { client_id: process.env.CLIENT_ID!, client_secret: process.env.CLIENT_SECRET! } });
if (!signedIn.data) throw new Error(\`sign-in failed: \${signedIn.error?.code}\`);
const token: string = signedIn.data.data.token;
const thing = await client.GET('/things/{tuid}', { params: { path: { tuid: process.env.TUID! } }, headers: { authorization: \`Bearer \${token}\` } });
if (!thing.data) throw new Error(\`read failed: \${thing.error?.message}\`);
const battery: number | null = thing.data.data.battery_level;
const status: string = thing.data.data.installation_status;
console.log(JSON.stringify({ tuid: thing.data.data.tuid, battery, status }));
`;

describe('a typed client generated from openapi.json', () => {
  let server: TestApp;
  let directory: string;
  before(async () => {
    server = await startTestApp();
    await publishUplinks(server, summaryUplinks(Math.floor(Date.now() / 1000) - 60));
    // Inside the project, so the program resolves openapi-fetch from its node_modules.
    await mkdir(join(root, 'node_modules', '.cache'), { recursive: true });
    directory = await mkdtemp(join(root, 'node_modules', '.cache', 'thingdesk-client-'));
  });
  after(async () => {
    await server?.stop();
    if (directory) await rm(directory, { recursive: true, force: true });
  });

  const tsc = (file: string) =>
    run(
      join(root, 'node_modules/.bin/tsc'),
      [
        '--noEmit',
        '--strict',
        '--skipLibCheck',
        '--target',
        'es2022',
        '--module',
        'nodenext',
        '--moduleResolution',
        'nodenext',
        '--types',
        'node',
        file,
      ],
      { cwd: directory },
    ).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    );

  test('openapi-typescript generates it, tsc compiles a program that signs in and reads a thing, and it runs', async () => {
    const document = (await (await fetch(server.url('/openapi.json'))).json()) as Parameters<typeof openapiTS>[0];
    await writeFile(join(directory, 'thingdesk-api.ts'), astToString(await openapiTS(document)));
    await writeFile(join(directory, 'package.json'), JSON.stringify({ type: 'module' }));
    await writeFile(join(directory, 'read-thing.ts'), program);
    assert.equal(await tsc('read-thing.ts'), '', 'the program compiles');

    await writeFile(
      join(directory, 'wrong.ts'),
      program.replace('tuid: process.env.TUID!', 'tuid: 7').replace('const status: string', 'const status: number'),
    );
    const errors = await tsc('wrong.ts');
    const lineOf = (text: string) => program.split('\n').findIndex((line) => line.includes(text)) + 1;
    assert.match(
      errors,
      new RegExp(`wrong\\.ts\\(${lineOf('tuid: process.env.TUID!')},\\d+\\): error TS2322`),
      `a number where the TUID goes does not compile: ${errors}`,
    );
    assert.match(
      errors,
      new RegExp(`wrong\\.ts\\(${lineOf('const status: string')},\\d+\\): error TS2322`),
      `nor a status read as a number: ${errors}`,
    );

    const tuid = summaryUplinks(0)[0]!.tsmTuid as string;
    const env = {
      ...process.env,
      THINGDESK_URL: server.url(server.config.restBasePath),
      CLIENT_ID: testBootstrap.BOOTSTRAP_CLIENT_ID,
      CLIENT_SECRET: testBootstrap.BOOTSTRAP_CLIENT_SECRET,
      TUID: tuid,
    };
    const { stdout } = await run(process.execPath, ['--import', 'tsx', join(directory, 'read-thing.ts')], { env, cwd: root });
    assert.equal(JSON.parse(stdout).tuid, tuid);
  });
});
