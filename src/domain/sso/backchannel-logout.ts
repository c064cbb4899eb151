import type { OidcSettings } from '../../config/sso-config.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DomainEventBus } from '../events.js';
import { oneTimeKey, type OidcRelyingParty } from './oidc-relying-party.js';
import { SsoCheckFailed } from './sso-check.js';

const logoutEvent = 'http://schemas.openid.net/event/backchannel-logout';
/** A logout token older than this (by `iat`) is refused; its `jti` is remembered as long, so a replay is refused too. */
const logoutTokenMaxAgeMs = 5 * 60_000;

/**
 * OpenID Connect Back-Channel Logout 1.0: the provider posts a `logout_token` when a person signs out there or is
 * disabled; the sessions started from that provider session (`sid`), or all of the person's single sign-on sessions
 * (`sub` only), end with their live streams: at once here, and on every other instance through `sessionsEnded`
 * (relayed by the cluster events on PostgreSQL, and the sessions' one-second recheck).
 */
export async function endSessionsByLogoutToken(
  deps: { store: Store; clock: Clock; events: DomainEventBus; relyingParty: OidcRelyingParty; settings: OidcSettings },
  logoutToken: unknown,
): Promise<{ ended: number }> {
  if (typeof logoutToken !== 'string' || logoutToken.length > 16_384) throw new SsoCheckFailed('signature', 'no logout_token');
  const now = deps.clock.now();
  const { keys } = await deps.relyingParty.provider();
  const claims = await keys.verify<{ sid?: unknown; events?: unknown; nonce?: unknown }>(logoutToken, {
    audience: deps.settings.clientId,
    nowMs: now,
    requiredClaims: ['iat', 'jti'],
  });
  const events = claims.events;
  if (typeof events !== 'object' || events === null || typeof (events as Record<string, unknown>)[logoutEvent] !== 'object')
    throw new SsoCheckFailed('signature', 'the events claim does not name a back-channel logout');
  if (claims.nonce !== undefined) throw new SsoCheckFailed('nonce', 'a logout token must not carry a nonce');
  if (claims.iat! * 1000 < now - logoutTokenMaxAgeMs || claims.iat! * 1000 > now + 60_000)
    throw new SsoCheckFailed('expiry', 'the logout token was issued too long ago or in the future');
  const sid = typeof claims.sid === 'string' ? claims.sid : undefined;
  const sub = typeof claims.sub === 'string' ? claims.sub : undefined;
  if (sid === undefined && sub === undefined) throw new SsoCheckFailed('signature', 'the logout token names neither sid nor sub');
  const fresh = await deps.store.ssoOneTime.put(
    oneTimeKey('jti', `${claims.iss}|${claims.jti}`),
    '',
    now + logoutTokenMaxAgeMs + 60_000,
    now,
  );
  if (!fresh) throw new SsoCheckFailed('state', 'this logout token was already used (jti replayed)');
  const sessionIds = await deps.store.sessions.endBySso(sid !== undefined ? { sid } : { sub }, now, 'provider logout');
  if (sessionIds.length > 0) deps.events.emit('sessionsEnded', { sessionIds, reason: 'provider logout' });
  return { ended: sessionIds.length };
}
