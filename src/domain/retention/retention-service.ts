import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { notFound, validationFailed, type FieldProblem } from '../errors.js';
import { effectiveRetentionDays, retentionDaysProblem, retentionHorizon } from './retention-rules.js';

/** What an organization keeps: the days in force and its own settings (null: the default). */
export interface OrganizationRetention {
  organizationId: string;
  /** Days raw messages are kept (0: forever), the organization's own or the default. */
  messageRetentionDays: number;
  /** Days rollups are kept (0: forever). */
  rollupRetentionDays: number;
  /** The organization's own settings; null where the default applies. */
  messageRetentionOverride: number | null;
  rollupRetentionOverride: number | null;
}

export type RetentionDeps = Pick<DomainDeps, 'store' | 'clock' | 'retentionDefaults'>;

/** The retention in force for an organization; NOT_FOUND for none. */
export async function getRetention(
  deps: Pick<RetentionDeps, 'store' | 'retentionDefaults'>,
  organizationId: string,
): Promise<OrganizationRetention> {
  const row = await deps.store.retention.get(organizationId);
  if (!row) throw notFound('No such organization.');
  return {
    organizationId,
    messageRetentionDays: effectiveRetentionDays(row.messageRetentionDays, deps.retentionDefaults.messageRetentionDays),
    rollupRetentionDays: effectiveRetentionDays(row.rollupRetentionDays, deps.retentionDefaults.rollupRetentionDays),
    messageRetentionOverride: row.messageRetentionDays,
    rollupRetentionOverride: row.rollupRetentionDays,
  };
}

/**
 * Sets an organization's own retention (a Manager's decision; the transports check the role). A field left out is
 * unchanged, null returns it to the default. Bad values change nothing and are named.
 */
export async function setRetention(
  deps: Pick<RetentionDeps, 'store' | 'retentionDefaults'>,
  organizationId: string,
  input: { messageRetentionDays?: unknown; rollupRetentionDays?: unknown },
  by?: Principal,
): Promise<OrganizationRetention> {
  const problems: FieldProblem[] = [];
  for (const field of ['messageRetentionDays', 'rollupRetentionDays'] as const) {
    const problem = input[field] === undefined ? undefined : retentionDaysProblem(field, input[field]);
    if (problem) problems.push(problem);
  }
  if (problems.length > 0) throw validationFailed(problems);
  const snapshot = (r: OrganizationRetention) =>
    auditFields({ messageRetentionDays: r.messageRetentionOverride, rollupRetentionDays: r.rollupRetentionOverride });
  return audited(
    deps,
    by,
    { organizationId, action: 'organization.set_retention', target: { type: 'organization', id: organizationId } },
    async () => {
      const before = await getRetention(deps, organizationId);
      const found = await deps.store.retention.set(organizationId, {
        messageRetentionDays: input.messageRetentionDays as number | null | undefined,
        rollupRetentionDays: input.rollupRetentionDays as number | null | undefined,
      });
      if (!found) throw notFound('No such organization.');
      const after = await getRetention(deps, organizationId);
      return { result: after, before: snapshot(before), after: snapshot(after) };
    },
  );
}

/**
 * The raw-message horizon of an organization: Unix seconds of arrival before which its raw messages may be gone
 * (expired), or null when they are kept forever. Readers that combine raw messages with rollups (series) answer
 * from the rollups before it.
 */
export async function rawHorizon(deps: RetentionDeps, organizationId: string): Promise<number | null> {
  const retention = await getRetention(deps, organizationId);
  const horizon = retentionHorizon(retention.messageRetentionDays, deps.clock.now());
  return horizon === null ? null : Math.floor(horizon / 1000);
}
