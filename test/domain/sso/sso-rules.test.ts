import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseRoleMap } from '../../../src/config/sso-config.js';
import { safeNext } from '../../../src/domain/sso/oidc-relying-party.js';
import { isLowerRole, roleFromClaim } from '../../../src/domain/sso/role-mapping.js';
import { checkOfJwtError } from '../../../src/domain/sso/sso-check.js';

describe('single sign-on rules (SPEC 15)', () => {
  const map = parseRoleMap('OIDC_ROLE_MAP', 'admins:MANAGER,field:INSTALLER,staff:VIEWER');
  const cases: [unknown, string | undefined][] = [
    [['staff', 'admins'], 'Manager'],
    [['field', 'staff'], 'Installer'],
    ['staff', 'Viewer'],
    [['other'], undefined],
    [undefined, undefined],
    [[42, null, 'field'], 'Installer'],
  ];
  for (const [claim, role] of cases)
    test(`the highest mapped role wins: ${JSON.stringify(claim)} -> ${role ?? 'refused'}`, () => {
      assert.equal(roleFromClaim(claim, map), role);
    });

  test('* maps everyone else, and a mapped value above it still wins', () => {
    const withDefault = parseRoleMap('OIDC_ROLE_MAP', '*:VIEWER,admins:MANAGER');
    assert.equal(roleFromClaim(['nobody'], withDefault), 'Viewer');
    assert.equal(roleFromClaim(undefined, withDefault), 'Viewer');
    assert.equal(roleFromClaim(['admins'], withDefault), 'Manager');
  });

  test('a demotion is a move to fewer rights', () => {
    assert.equal(isLowerRole('Viewer', 'Manager'), true);
    assert.equal(isLowerRole('Installer', 'Manager'), true);
    assert.equal(isLowerRole('Manager', 'Viewer'), false);
    assert.equal(isLowerRole('Viewer', 'Viewer'), false);
  });

  const nexts: [unknown, string][] = [
    ['/studio/things?q=a', '/studio/things?q=a'],
    ['/studio/things#frag', '/studio/things'],
    ['//evil.test', '/'],
    ['/\\evil.test', '/'],
    ['/studio\\..\\x', '/'],
    ['/a\tb', '/'],
    ['https://evil.test/', '/'],
    ['studio', '/'],
    [undefined, '/'],
    [['/a'], '/'],
  ];
  for (const [next, safe] of nexts)
    test(`next ${JSON.stringify(next)} -> ${safe}`, () => {
      assert.equal(safeNext(next), safe);
    });

  test('the check named for a verification error comes from its code and claim, nested or not', () => {
    assert.equal(checkOfJwtError({ code: 'ERR_JWT_EXPIRED' }), 'expiry');
    assert.equal(checkOfJwtError({ code: 'ERR_JWT_CLAIM_VALIDATION_FAILED', claim: 'aud' }), 'audience');
    assert.equal(checkOfJwtError({ code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: { cause: { claim: 'iss' } } }), 'issuer');
    assert.equal(checkOfJwtError({ code: 'OAUTH_JWT_CLAIM_COMPARISON_FAILED', cause: { claim: 'nonce' } }), 'nonce');
    assert.equal(checkOfJwtError({ code: 'ERR_JWKS_NO_MATCHING_KEY' }), 'signature');
    assert.equal(checkOfJwtError(new Error('anything')), 'signature');
  });
});
