import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mayDo, rolesWith } from '../../../src/domain/auth/permissions.js';

test('each role holds the rights of SPEC section 4, and more rights mean a higher role', () => {
  assert.deepEqual(rolesWith('read'), ['Viewer', 'Installer', 'Manager']);
  assert.deepEqual(rolesWith('fieldService'), ['Installer', 'Manager']);
  assert.deepEqual(rolesWith('administer'), ['Manager']);
  assert.equal(mayDo('Viewer', 'fieldService'), false);
  assert.equal(mayDo('Installer', 'administer'), false);
});
