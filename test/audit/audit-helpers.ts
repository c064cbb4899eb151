import assert from 'node:assert/strict';
import type { AuditEntry } from '../../src/domain/audit/audit-types.js';
import type { TestApp } from '../helpers/test-app.js';

/** Every entry of an organization's log, oldest first, read from the store (not through the API under test). */
export async function entriesOf(server: TestApp, organizationId = 'acme'): Promise<AuditEntry[]> {
  const all: AuditEntry[] = [];
  for await (const page of server.app.store.audit.pages(organizationId)) all.push(...page);
  return all;
}

/** Runs `work` and answers the entries it added to the organization's log. */
export async function entriesAddedBy(server: TestApp, work: () => Promise<unknown>, organizationId = 'acme'): Promise<AuditEntry[]> {
  const before = (await server.app.store.audit.head(organizationId))?.lastId ?? 0;
  await work();
  return (await entriesOf(server, organizationId)).filter((entry) => entry.id > before);
}

/** The one entry of `action` among `entries`, asserted to be there exactly once. */
export function only(entries: AuditEntry[], action: string): AuditEntry {
  const found = entries.filter((entry) => entry.action === action);
  assert.equal(found.length, 1, `one ${action} entry expected among ${JSON.stringify(entries.map((e) => e.action))}`);
  return found[0]!;
}
