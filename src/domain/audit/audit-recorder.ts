import type { Principal } from '../auth/principal.js';
import type { Clock } from '../clock.js';
import type { Store } from '../../store/store.js';
import { auditContextOf } from './audit-context.js';
import type { AuditChanges, AuditContext, AuditEntry, AuditFields, AuditOutcome, AuditScalar, AuditTarget } from './audit-types.js';

/** What the recorder needs: the store (its transaction and the log) and, where there is one, the clock. */
export interface AuditDeps {
  store: Pick<Store, 'transaction' | 'audit'>;
  clock?: Clock;
}

/** What an audited operation is: its organization, action (`group.create`) and target. */
export interface AuditedOperation {
  organizationId: string;
  action: string;
  target: AuditTarget;
}

/** What the change reports back: its result and the target's audited fields before and after (absent: none). */
export interface AuditedChange<T> {
  result: T;
  before?: AuditFields | null;
  after?: AuditFields | null;
  /** The target when only the change knows it (a generated id). */
  target?: AuditTarget;
  /** Fields to record that are not a before/after pair (a command's name, an import's counts). */
  details?: AuditFields;
}

/**
 * THE way a domain operation changes state (docs/audit.md, "Recording a new mutation"): `change` runs in one
 * transaction with the entry that records it, so the change never commits without its entry and a change that
 * throws (invalid, not found, conflict, rolled back) records nothing. Who acts comes from `principal` (or the edge's
 * scope: CLI, system, MQTT); `changes` is computed from the before and after snapshots, which `auditFields` makes
 * and which cannot hold a secret.
 */
export async function audited<T>(
  deps: AuditDeps,
  principal: Principal | undefined,
  operation: AuditedOperation,
  change: () => Promise<AuditedChange<T>>,
): Promise<T> {
  const context = auditContextOf(principal);
  return deps.store.transaction(async () => {
    const done = await change();
    await deps.store.audit.append(
      entryOf(
        deps,
        context,
        { ...operation, target: done.target ?? operation.target },
        changesOf(done.before, done.after, done.details),
        'success',
      ),
    );
    return done.result;
  });
}

/**
 * Records an entry that changes nothing else: a refused attempt (`denied`), a failed sign-in, a logout. Its own
 * transaction unless the caller is in one.
 */
export async function recordAudit(
  deps: AuditDeps,
  principal: Principal | undefined,
  operation: AuditedOperation & { outcome: AuditOutcome; details?: AuditFields; context?: Partial<AuditContext> },
): Promise<void> {
  const context = { ...auditContextOf(principal), ...operation.context };
  return deps.store.transaction(() =>
    deps.store.audit.append(entryOf(deps, context, operation, changesOf(undefined, undefined, operation.details), operation.outcome)),
  );
}

/** `{field: {from, to}}` for every field that differs; details as `{from: null, to}`; null when there is nothing. */
export function changesOf(before?: AuditFields | null, after?: AuditFields | null, details?: AuditFields): AuditChanges | null {
  const changes: AuditChanges = {};
  const keys = new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})]);
  for (const key of keys) {
    const from: AuditScalar = before?.[key] ?? null;
    const to: AuditScalar = after?.[key] ?? null;
    if (from !== to) changes[key] = { from, to };
  }
  for (const [key, to] of Object.entries(details ?? {})) changes[key] = { from: null, to };
  return Object.keys(changes).length === 0 ? null : changes;
}

function entryOf(
  deps: AuditDeps,
  context: AuditContext,
  operation: AuditedOperation,
  changes: AuditChanges | null,
  outcome: AuditOutcome,
): Omit<AuditEntry, 'id' | 'hash'> {
  return {
    at: deps.clock?.now() ?? Date.now(),
    organizationId: operation.organizationId,
    actor: context.actor,
    via: context.via,
    requestId: context.requestId,
    address: context.address,
    action: operation.action,
    target: operation.target,
    changes,
    outcome,
  };
}

/**
 * A change of the whole platform (the signing keys every organization's tokens rely on): one entry in every
 * organization's log, all in the change's transaction.
 */
export async function auditedForEveryOrganization<T>(
  deps: AuditDeps & { store: Pick<Store, 'organizations'> },
  operation: Omit<AuditedOperation, 'organizationId'>,
  change: () => Promise<AuditedChange<T>>,
): Promise<T> {
  const context = auditContextOf(undefined);
  return deps.store.transaction(async () => {
    const done = await change();
    for (const organization of await deps.store.organizations.list()) {
      const entry = { ...operation, organizationId: organization.id, target: done.target ?? operation.target };
      await deps.store.audit.append(entryOf(deps, context, entry, changesOf(done.before, done.after, done.details), 'success'));
    }
    return done.result;
  });
}
