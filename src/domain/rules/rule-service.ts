import { randomUUID } from 'node:crypto';
import { announceAlertChange } from '../alerts/alert-engine.js';
import type { AlertChange } from '../alerts/alert-types.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields, type AuditFields } from '../audit/audit-types.js';
import { mayDo } from '../auth/permissions.js';
import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { conflict, DuplicateKeyError, forbidden, notFound, validationFailed } from '../errors.js';
import { checkChannelIds } from '../channels/channel-service.js';
import type { AlertRule, RuleInput } from './rule-types.js';
import { checkClearThreshold, checkRuleInput, patchOf } from './rule-validation.js';

export type RuleDeps = Pick<DomainDeps, 'store' | 'clock' | 'events'>;

/**
 * Alert rules (SPEC section 13): every role reads them; Managers and API clients create, change and delete them,
 * each change audited and announced (`alertRulesChanged`), so every instance's rule index reloads.
 */

function requireManager(principal: Principal): void {
  if (principal.kind === 'user' && !mayDo(principal.role, 'administer')) throw forbidden('Only Managers may change alert rules.');
}

const ruleNotFound = (id: string) => notFound(`No alert rule ${id}.`);

async function withUniqueName<T>(name: string | undefined, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof DuplicateKeyError) throw conflict(`An alert rule named ${JSON.stringify(name)} already exists.`);
    throw error;
  }
}

/** The rule as checked whole: the hysteresis rule looks at op, threshold and clearThreshold together. */
function checkWhole(rule: Pick<AlertRule, 'op' | 'threshold' | 'clearThreshold'>): void {
  const problem = checkClearThreshold(rule.op, rule.threshold, rule.clearThreshold);
  if (problem) throw validationFailed([problem]);
}

/** Every channel a rule lists is one of its organization's (another organization's id is refused as unknown). */
async function checkChannels(deps: Pick<RuleDeps, 'store'>, organizationId: string, ids: readonly string[]): Promise<void> {
  const problems = await checkChannelIds(deps, organizationId, 'channels', ids);
  if (problems.length > 0) throw validationFailed(problems);
}

export async function createAlertRule(deps: RuleDeps, principal: Principal, input: RuleInput): Promise<AlertRule> {
  requireManager(principal);
  const problems = checkRuleInput(input, true);
  if (problems.length > 0) throw validationFailed(problems);
  const now = deps.clock.now();
  const fields = patchOf(input);
  const rule: AlertRule = {
    id: `rul_${randomUUID().replaceAll('-', '')}`,
    organizationId: principal.organizationId,
    name: fields.name!,
    tsmId: fields.tsmId!,
    field: fields.field!,
    op: fields.op!,
    threshold: fields.threshold!,
    clearThreshold: fields.clearThreshold ?? null,
    forS: fields.forS ?? 0,
    scope: fields.scope ?? { groupIds: null, tuids: null },
    severity: fields.severity!,
    enabled: fields.enabled ?? true,
    channels: fields.channels ?? [],
    createdAt: now,
    updatedAt: now,
  };
  checkWhole(rule);
  await checkChannels(deps, rule.organizationId, rule.channels);
  await withUniqueName(rule.name, () =>
    audited(deps, principal, ruleOperation(rule, 'alert_rule.create'), async () => {
      await deps.store.alertRules.create(rule);
      return { result: undefined, after: auditedRule(rule) };
    }),
  );
  deps.events.emit('alertRulesChanged', { organizationId: rule.organizationId });
  return rule;
}

export async function listAlertRules(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<AlertRule[]> {
  return deps.store.alertRules.list(principal.organizationId);
}

export async function getAlertRule(deps: Pick<DomainDeps, 'store'>, principal: Principal, id: string): Promise<AlertRule> {
  const rule = await deps.store.alertRules.get(principal.organizationId, id);
  if (!rule) throw ruleNotFound(id);
  return rule;
}

/** Changes any field. What the rule's evaluation does with its open periods is the engine's (rule-evaluation). */
export async function updateAlertRule(deps: RuleDeps, principal: Principal, id: string, input: RuleInput): Promise<AlertRule> {
  requireManager(principal);
  const current = await getAlertRule(deps, principal, id);
  const problems = checkRuleInput(input, false);
  if (problems.length > 0) throw validationFailed(problems);
  const patch = patchOf(input);
  checkWhole({ ...current, ...patch });
  if (patch.channels) await checkChannels(deps, principal.organizationId, patch.channels);
  const now = deps.clock.now();
  let closed: AlertChange[] = [];
  const updated = await withUniqueName(patch.name, () =>
    audited(deps, principal, ruleOperation(current, 'alert_rule.update'), async () => {
      const updated = await deps.store.alertRules.update(principal.organizationId, id, patch, now);
      if (!updated) throw ruleNotFound(id);
      // Disabling closes the rule's open periods (they stay in the history), in the change's transaction.
      if (current.enabled && !updated.enabled) closed = await deps.store.ruleEvaluation.closeRule(principal.organizationId, id, now);
      return { result: updated, before: auditedRule(current), after: auditedRule(updated) };
    }),
  );
  deps.events.emit('alertRulesChanged', { organizationId: principal.organizationId });
  for (const change of closed) announceAlertChange(deps.events, change);
  return updated;
}

export async function deleteAlertRule(deps: RuleDeps, principal: Principal, id: string): Promise<void> {
  requireManager(principal);
  const current = await getAlertRule(deps, principal, id);
  const closed = await audited(deps, principal, ruleOperation(current, 'alert_rule.delete'), async () => {
    // Its open periods close and stay in the things' alert history.
    const closed = await deps.store.ruleEvaluation.closeRule(principal.organizationId, id, deps.clock.now());
    if (!(await deps.store.alertRules.delete(principal.organizationId, id))) throw ruleNotFound(id);
    return { result: closed, before: auditedRule(current) };
  });
  deps.events.emit('alertRulesChanged', { organizationId: principal.organizationId });
  for (const change of closed) announceAlertChange(deps.events, change);
}

function ruleOperation(rule: Pick<AlertRule, 'id' | 'organizationId'>, action: string) {
  return { organizationId: rule.organizationId, action, target: { type: 'alert_rule', id: rule.id } };
}

function auditedRule(rule: AlertRule): AuditFields {
  return auditFields({
    name: rule.name,
    tsmId: rule.tsmId,
    field: rule.field,
    op: rule.op,
    threshold: rule.threshold,
    clearThreshold: rule.clearThreshold,
    forS: rule.forS,
    groupIds: rule.scope.groupIds?.join(',') ?? null,
    tuids: rule.scope.tuids?.join(',') ?? null,
    severity: rule.severity,
    enabled: rule.enabled,
    channels: rule.channels.join(','),
  });
}
