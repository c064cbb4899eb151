import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { errorCatalog } from '../../src/domain/errors.js';
import { httpStatusOf } from '../../src/http/problem.js';

test('every error code has one HTTP status and one documented row with that status', () => {
  const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
  const rows = new Map([...doc.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((m) => [m[1], Number(m[2])]));
  assert.deepEqual([...rows.keys()].sort(), Object.keys(errorCatalog).sort());
  assert.deepEqual(Object.keys(httpStatusOf).sort(), Object.keys(errorCatalog).sort());
  for (const [code, status] of Object.entries(httpStatusOf)) assert.equal(rows.get(code), status, `docs/errors.md status of ${code}`);
});
