import type { Principal } from '../auth/principal.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, validationFailed } from '../errors.js';
import { valueAt } from './rule-conditions.js';
import type { RuleScope } from './rule-types.js';
import { checkRuleInput, patchOf } from './rule-validation.js';

import { previewSampleLimit } from './rule-preview-bounds.js';

export interface RulePreviewInput {
  tsmId?: unknown;
  field?: unknown;
  scope?: unknown;
}

/** A thing's last value of the rule's field: null when its last message of the id lacks a number there, or none was found. */
export interface RulePreviewSample {
  tuid: string;
  value: number | null;
  /** When that message arrived, Unix milliseconds; null when none was found. */
  at: number | null;
}

export interface RulePreview {
  /** Things of the organization the scope covers now. */
  thingCount: number;
  samples: RulePreviewSample[];
}

/**
 * What a rule being written would read (SPEC section 13, the rule form's preview): how many things its scope covers
 * and the field's last values on the most recently heard of them, read as the evaluator reads them (`valueAt`).
 * Every role may ask: it shows the organization's own data, bounded (previewSampleLimit things, each a bounded read).
 */
export async function previewAlertRule(
  deps: Pick<DomainDeps, 'store'>,
  principal: Principal,
  input: RulePreviewInput,
): Promise<RulePreview> {
  const problems = checkRuleInput({ tsmId: input.tsmId, field: input.field, scope: input.scope }, false);
  if (input.tsmId === undefined) problems.push(fieldProblem('tsmId', 'is required'));
  if (input.field === undefined) problems.push(fieldProblem('field', 'is required'));
  if (problems.length > 0) throw validationFailed(problems);
  const scope: RuleScope = patchOf({ scope: input.scope ?? null }).scope!;
  const tsmId = input.tsmId as number;
  const path = (input.field as string).split('.');
  const { count, tuids } = await deps.store.rulePreview.thingsInScope(principal.organizationId, scope, previewSampleLimit);
  const latest = new Map(
    (await deps.store.rulePreview.latestMessages(principal.organizationId, tuids, tsmId)).map((message) => [message.tuid, message]),
  );
  return {
    thingCount: count,
    samples: tuids.map((tuid) => {
      const message = latest.get(tuid);
      if (!message) return { tuid, value: null, at: null };
      return { tuid, value: valueAt(JSON.parse(message.body) as Record<string, unknown>, path) ?? null, at: message.receivedAt };
    }),
  };
}
