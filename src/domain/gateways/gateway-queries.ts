import type { Config } from '../../config/config.js';
import type { DomainDeps } from '../domain-deps.js';
import { fieldProblem, notFound, validationFailed, type FieldProblem } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { Thing } from '../things/thing-types.js';
import { isValidTuid, tuidRuleInWords } from '../things/tuid.js';
import type { Gateway, GatewayRow } from './gateway-types.js';

/** Page size of the gateways list: 1 to 1000, 100 when not given. */
export const gatewayPageLimit = { min: 1, max: 1000, default: 100 } as const;
/** At most this many of a gateway's things come with it (its `thingCount` says how many it has). */
export const gatewayThingsLimit = 1000;

type GatewayDeps = Pick<DomainDeps, 'store' | 'clock'> & { config: Pick<Config, 'gatewayTimeoutS' | 'deviceTimeoutS'> };

export interface GatewayListInput {
  /** Case-insensitive substring of the gateway's TUID. */
  q?: string;
  state?: string;
  limit?: number;
  cursor?: string;
}

export interface GatewayPage {
  gateways: Gateway[];
  nextCursor: string | null;
}

/**
 * The organization's gateways by TUID, a page at a time (SPEC section 16: REST `GET /gateways`, GraphQL
 * `gateways`), for every role. `online`/`silent` by GATEWAY_TIMEOUT_S, as the alert engine decides.
 */
export async function listGateways(deps: GatewayDeps, principal: Principal, input: GatewayListInput): Promise<GatewayPage> {
  const problems: FieldProblem[] = [];
  const limit = input.limit ?? gatewayPageLimit.default;
  if (!Number.isInteger(limit) || limit < gatewayPageLimit.min || limit > gatewayPageLimit.max) {
    problems.push(fieldProblem('limit', `must be an integer from ${gatewayPageLimit.min} to ${gatewayPageLimit.max}`));
  }
  if (input.state !== undefined && input.state !== 'online' && input.state !== 'silent')
    problems.push(fieldProblem('state', 'must be online or silent'));
  if (input.q !== undefined && input.q.length > 64) problems.push(fieldProblem('q', 'must be at most 64 characters'));
  const afterTuid = input.cursor === undefined ? undefined : decodeGatewayCursor(input.cursor);
  if (afterTuid === null) problems.push(fieldProblem('cursor', 'is not one this service returned'));
  if (problems.length > 0) throw validationFailed(problems);
  const rows = await deps.store.gateways.list(principal.organizationId, {
    ...silenceBounds(deps),
    q: input.q,
    state: input.state as 'online' | 'silent' | undefined,
    afterTuid: afterTuid ?? undefined,
    limit: limit + 1,
  });
  const gateways = rows.slice(0, limit).map((row) => withSilence(deps, row));
  const last = gateways[gateways.length - 1];
  return { gateways, nextCursor: rows.length > limit && last ? encodeGatewayCursor(last.gatewayTuid) : null };
}

/**
 * One gateway with the things last heard through it (by TUID, at most `gatewayThingsLimit`); NOT_FOUND for a
 * gateway no thing of the organization was heard through.
 */
export async function getGateway(deps: GatewayDeps, principal: Principal, gatewayTuid: string): Promise<Gateway & { things: Thing[] }> {
  if (!isValidTuid(gatewayTuid)) throw validationFailed([fieldProblem('gatewayTuid', tuidRuleInWords)]);
  const [row] = await deps.store.gateways.list(principal.organizationId, { ...silenceBounds(deps), gatewayTuid, limit: 1 });
  if (!row) throw notFound(`No gateway ${gatewayTuid}.`);
  const things = await deps.store.things.list(principal.organizationId, { gatewayTuid, limit: gatewayThingsLimit });
  return { ...withSilence(deps, row), things };
}

function silenceBounds(deps: GatewayDeps) {
  const now = deps.clock.now();
  return { gatewaySilentBefore: now - deps.config.gatewayTimeoutS * 1000, thingSilentBefore: now - deps.config.deviceTimeoutS * 1000 };
}

/** The alert engine's rule: silent once no message came through it for GATEWAY_TIMEOUT_S, since then. */
function withSilence(deps: GatewayDeps, row: GatewayRow): Gateway {
  const silent = row.lastSeen < deps.clock.now() - deps.config.gatewayTimeoutS * 1000;
  return { ...row, silentSince: silent ? row.lastSeen + deps.config.gatewayTimeoutS * 1000 : null };
}

function encodeGatewayCursor(tuid: string): string {
  return Buffer.from(`g:${tuid}`, 'utf8').toString('base64url');
}

function decodeGatewayCursor(cursor: string): string | null {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const tuid = text.startsWith('g:') ? text.slice(2) : '';
  return isValidTuid(tuid) ? tuid : null;
}
