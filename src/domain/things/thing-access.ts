import type { DomainDeps } from '../domain-deps.js';
import { invalidField, notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { Thing } from './thing-types.js';
import { brokenNewTuidRule, isValidTuid, tuidRuleInWords } from './tuid.js';

/** VALIDATION_FAILED naming `field` unless `tuid` follows the TUID rule. */
export function checkTuid(tuid: string, field = 'tuid'): void {
  if (!isValidTuid(tuid)) throw invalidField(field, `${field} ${tuidRuleInWords}`);
}

/**
 * VALIDATION_FAILED naming `field` unless `tuid` may become a new thing's id: the TUID rule, and not a reserved
 * path segment. Checked where a request would claim a thing nobody owns.
 */
export function checkNewTuid(tuid: string, reservedTuids: ReadonlySet<string>, field = 'tuid'): void {
  const broken = brokenNewTuidRule(tuid, reservedTuids, field);
  if (broken) throw invalidField(field, broken);
}

/** The answer for a thing the caller may not see: the same whether it does not exist or is another's. */
export function thingNotFound(tuid: string) {
  return notFound(`No thing ${tuid}.`);
}

/**
 * The caller's organization's thing, or NOT_FOUND: another organization's thing answers exactly like an unknown
 * one, so its existence does not leak.
 */
export async function requireThing(deps: Pick<DomainDeps, 'store'>, principal: Principal, tuid: string): Promise<Thing> {
  checkTuid(tuid);
  const thing = await deps.store.things.get(tuid);
  if (!thing || thing.organizationId !== principal.organizationId) throw thingNotFound(tuid);
  return thing;
}
