import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { runThingdesk } from '../../helpers/run-cli.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

describe('AUTH_PASSWORD_LOGIN=false: only a break-glass Manager signs in with a password (SPEC 15)', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ AUTH_PASSWORD_LOGIN: 'false' });
  });
  after(async () => {
    await server.stop();
    await cleanupStores();
  });

  const login = (email: string, password: string) =>
    new GraphqlClient(server).login({ email, password, organizationName: testBootstrap.BOOTSTRAP_ORG });

  test('the studio is told password sign-in is off', async () => {
    const config = (await (await fetch(server.url('/auth/oidc/config'))).json()) as { passwordLogin: boolean; loginUrl: null };
    assert.equal(config.passwordLogin, false);
    assert.equal(config.loginUrl, null);
  });

  test('a right password is refused like a wrong one, unless the CLI marked the Manager --break-glass', async () => {
    const env = { DATABASE_URL: server.config.databaseUrl };
    assert.equal(
      (await login(testBootstrap.BOOTSTRAP_EMAIL, testBootstrap.BOOTSTRAP_PASSWORD)).body.errors?.[0]?.extensions?.code,
      'UNAUTHENTICATED',
    );
    const refused = await runThingdesk(
      ['user', 'create', '--org', 'acme', '--email', 'v@acme.test', '--role', 'Viewer', '--break-glass'],
      env,
    );
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /--role/);
    const created = await runThingdesk(
      [
        'user',
        'create',
        '--org',
        'acme',
        '--email',
        'glass@acme.test',
        '--role',
        'Manager',
        '--password',
        'break-the-glass',
        '--break-glass',
        '--json',
      ],
      env,
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal(JSON.parse(created.stdout).breakGlass, true);
    const signedIn = await login('glass@acme.test', 'break-the-glass');
    assert.ok(signedIn.body.data?.login?.accessToken, JSON.stringify(signedIn.body));
    assert.equal((await login('glass@acme.test', 'wrong-password')).body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
  });
});
