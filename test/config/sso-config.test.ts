import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ConfigError } from '../../src/config/config-error.js';
import { loadConfig } from '../../src/config/config.js';

const valid = {
  PUBLIC_URL: 'https://iot.example.com/',
  OIDC_ISSUER: 'https://id.example.com/realms/acme/',
  OIDC_CLIENT_ID: 'thingdesk',
  OIDC_CLIENT_SECRET: 'secret',
  OIDC_ORGANIZATION: 'acme',
  OIDC_ROLE_MAP: 'thingdesk-admins:MANAGER, /field:team:installer, *:VIEWER',
};

describe('single sign-on settings (SPEC 15)', () => {
  test('defaults: no single sign-on, password sign-in on', () => {
    const { sso } = loadConfig({});
    assert.deepEqual(sso, { publicUrl: undefined, passwordLogin: true, oidc: undefined });
  });

  test('a valid provider: issuer and PUBLIC_URL normalized, the role map parsed (value may hold :), defaults filled', () => {
    const { sso } = loadConfig(valid);
    assert.equal(sso.publicUrl, 'https://iot.example.com');
    assert.equal(sso.oidc?.issuer, 'https://id.example.com/realms/acme');
    assert.deepEqual(sso.oidc?.roleMap, [
      { value: 'thingdesk-admins', role: 'Manager' },
      { value: '/field:team', role: 'Installer' },
      { value: '*', role: 'Viewer' },
    ]);
    assert.equal(sso.oidc?.scopes, 'openid email profile');
    assert.equal(sso.oidc?.roleClaim, 'groups');
    assert.equal(sso.oidc?.jit, true);
    assert.equal(sso.oidc?.clientAuth, 'client_secret_basic');
    assert.equal(loadConfig({ ...valid, AUTH_PASSWORD_LOGIN: 'false' }).sso.passwordLogin, false);
  });

  const refused: [string, Record<string, string>][] = [
    ['OIDC_CLIENT_ID', { OIDC_CLIENT_ID: 'x' }],
    ['PUBLIC_URL', { ...valid, PUBLIC_URL: '' }],
    ['PUBLIC_URL', { ...valid, PUBLIC_URL: 'https://iot.example.com/thingdesk' }],
    ['OIDC_ISSUER', { ...valid, OIDC_ISSUER: 'ftp://id.example.com' }],
    ['OIDC_CLIENT_ID', { ...valid, OIDC_CLIENT_ID: '' }],
    ['OIDC_ORGANIZATION', { ...valid, OIDC_ORGANIZATION_CLAIM: 'org' }],
    ['OIDC_ORGANIZATION', { ...valid, OIDC_ORGANIZATION: '' }],
    ['OIDC_ORGANIZATION', { ...valid, OIDC_ORGANIZATION: 'Not A Slug' }],
    ['OIDC_ROLE_MAP', { ...valid, OIDC_ROLE_MAP: '' }],
    ['OIDC_ROLE_MAP', { ...valid, OIDC_ROLE_MAP: 'admins:ROOT' }],
    ['OIDC_ROLE_MAP', { ...valid, OIDC_ROLE_MAP: 'MANAGER' }],
    ['OIDC_SCOPES', { ...valid, OIDC_SCOPES: 'email profile' }],
    ['OIDC_ALGORITHMS', { ...valid, OIDC_ALGORITHMS: 'RS256,HS256' }],
    ['OIDC_ALGORITHMS', { ...valid, OIDC_ALGORITHMS: 'none' }],
    ['OIDC_AUDIENCE', { ...valid, OIDC_ACCEPT_ACCESS_TOKENS: 'true' }],
    ['OIDC_JIT', { ...valid, OIDC_JIT: 'maybe' }],
    ['AUTH_PASSWORD_LOGIN', { AUTH_PASSWORD_LOGIN: 'off' }],
  ];
  for (const [variable, env] of refused)
    test(`refused, naming ${variable}: ${JSON.stringify(env).slice(0, 90)}`, () => {
      assert.throws(
        () => loadConfig(env),
        (error: unknown) => error instanceof ConfigError && error.variable === variable,
      );
    });
});
