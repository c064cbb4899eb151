/** The chain's canonical form (docs/audit.md): the fast serializer writes exactly what the RFC 8785 library writes. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { canonicalEntry, canonicalEntryByLibrary, entryHash } from '../../src/domain/audit/audit-chain.js';
import type { AuditEntry } from '../../src/domain/audit/audit-types.js';

const text = fc.string({ unit: 'binary', maxLength: 12 });
const nullableText = fc.option(text, { nil: null });
const scalar = fc.oneof(text, fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer(), fc.boolean(), fc.constant(null));
const entry: fc.Arbitrary<Omit<AuditEntry, 'hash'>> = fc.record({
  id: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  at: fc.integer({ min: 0, max: 4_102_444_800_000 }),
  organizationId: text,
  actor: fc.record({ type: fc.constantFrom('user', 'api_client', 'cli', 'system'), id: nullableText, label: nullableText }),
  via: fc.constantFrom('rest', 'graphql', 'cli', 'mqtt', 'system'),
  requestId: nullableText,
  address: nullableText,
  action: text,
  target: fc.record({ type: text, id: nullableText }),
  changes: fc.option(fc.dictionary(text, fc.record({ from: scalar, to: scalar })), { nil: null }),
  outcome: fc.constantFrom('success', 'denied'),
});

test('canonicalEntry is RFC 8785 (as the canonicalize library writes it) for any entry', () => {
  fc.assert(
    fc.property(entry, (e) => {
      assert.equal(canonicalEntry(e), canonicalEntryByLibrary(e));
    }),
    { numRuns: 500 },
  );
});

test('the hash of the first entry is SHA-256 over the empty string and its canonical JSON; a change of any field changes it', () => {
  const first: Omit<AuditEntry, 'hash'> = {
    id: 1,
    at: Date.UTC(2026, 0, 1),
    organizationId: 'acme',
    actor: { type: 'system', id: 'system', label: 'thingdesk' },
    via: 'system',
    requestId: null,
    address: null,
    action: 'organization.create',
    target: { type: 'organization', id: 'acme' },
    changes: { name: { from: null, to: 'Acme' } },
    outcome: 'success',
  };
  assert.equal(
    canonicalEntry(first),
    '{"action":"organization.create","actor":{"id":"system","label":"thingdesk","type":"system"},"address":null,"at":"2026-01-01T00:00:00.000Z","changes":{"name":{"from":null,"to":"Acme"}},"id":1,"organization_id":"acme","outcome":"success","request_id":null,"target":{"id":"acme","type":"organization"},"via":"system"}',
  );
  const hash = entryHash('', first);
  assert.match(hash, /^[0-9a-f]{64}$/);
  assert.notEqual(entryHash('', { ...first, outcome: 'denied' }), hash);
  assert.notEqual(entryHash('0', first), hash);
});
