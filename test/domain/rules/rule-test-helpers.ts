/** What the rule-evaluation tests share: sending readings, creating rules and reading their periods over REST. */
import assert from 'node:assert/strict';
import type { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { publishUplinks } from '../../helpers/uplinks.js';

/** A message id outside the catalog: rules read any id (SPEC section 13). */
export const ruleTsmId = 4242;

let tsmTs = 1_700_000_000;

/** Sends one message per reading (in order, one batch) and waits until the alert engine has evaluated them. */
export async function send(server: TestApp, readings: readonly { tuid: string; [field: string]: unknown }[], tsmId = ruleTsmId) {
  await publishUplinks(
    server,
    readings.map(({ tuid, ...fields }) => ({ tsmId, tsmEv: 10, tsmTs: (tsmTs += 1), tsmTuid: tuid, ...fields })),
  );
  await server.app.alertEngine.settled();
}

export async function createRule(rest: RestClient, rule: Record<string, unknown>): Promise<string> {
  const response = await rest.post('/alert-rules', {
    tsm_id: ruleTsmId,
    field: 'temp',
    op: 'gt',
    threshold: 30,
    severity: 'critical',
    ...rule,
  });
  assert.equal(response.status, 200, response.text);
  return response.body.data.id;
}

export interface RulePeriod {
  tuid: string;
  alert_type: string;
  severity: string;
  rule_id: string | null;
  value: number | null;
  to: string | null;
}

/** A thing's periods of one rule, oldest first, as `GET /alerts` lists them. */
export async function periodsOf(rest: RestClient, tuid: string, ruleId: string): Promise<RulePeriod[]> {
  const response = await rest.get(`/alerts?tuid=${tuid}&limit=100`);
  assert.equal(response.status, 200, response.text);
  return (response.body.data.alerts as RulePeriod[]).filter((p) => p.rule_id === ruleId).reverse();
}

/** Open (true) or closed (false) for each period of a thing and rule, oldest first. */
export async function openFlags(rest: RestClient, tuid: string, ruleId: string): Promise<boolean[]> {
  return (await periodsOf(rest, tuid, ruleId)).map((p) => p.to === null);
}
