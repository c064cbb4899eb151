import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { DomainEventBus } from '../../domain/events.js';
import { activeMqttCredential, authenticateBrokerUser, type IdentityDeps } from '../../domain/identity/identity-service.js';
import { claimClientId } from '../../domain/identity/client-id-ownership.js';
import { hashPassword } from '../../domain/identity/secrets.js';
import type { MqttCredential } from '../../domain/identity/types.js';
import { unauthenticated } from '../../domain/errors.js';
import { mayBrokerAllow, type MqttPrincipal } from '../../mqtt/access-rules.js';
import { AuthThrottle, type AuthThrottleLimits } from '../../mqtt/auth-throttle.js';
import { sendsSharedToken } from '../bearer-token.js';

export interface MqttAuthDeps extends IdentityDeps {
  events: DomainEventBus;
  /** MQTT_AUTH_HTTP_SECRET: the broker sends it as `Authorization: Bearer`. */
  secret: string;
  /** The platform's own broker user (from MQTT_URL): it may do what `platformAcl` allows, nothing else. */
  platform: { username: string; password: string };
  feedTemplate: string;
  /** MQTT_AUTH_FAILURES_PER_USERNAME / _PER_ADDRESS: the embedded broker's throttle, on these routes too. */
  authFailures: AuthThrottleLimits;
}

const authenticateBody = Type.Object({
  username: Type.String({ maxLength: 256 }),
  password: Type.String({ maxLength: 1024 }),
  clientid: Type.Optional(Type.String({ maxLength: 256 })),
  // The device's address as the broker saw it (EMQX: `${peerhost}`), for the throttle's count per address.
  peerhost: Type.Optional(Type.String({ maxLength: 64 })),
});
const authorizeBody = Type.Object({
  username: Type.String({ maxLength: 256 }),
  topic: Type.String({ maxLength: 65_535 }),
  action: Type.Union([Type.Literal('publish'), Type.Literal('subscribe')]),
  clientid: Type.Optional(Type.String({ maxLength: 256 })),
});

// A broker asks on every publish: the credential behind a username is read at most once a second per instance.
// A revocation anywhere in the deployment drops it at once (the event is relayed); one made by the CLI counts
// after the second.
const credentialTtlMs = 1_000;

/**
 * MQTT_AUTH=http: the endpoints a broker calls to authenticate a client and to authorize each publish and
 * subscribe (EMQX's HTTP authentication and authorization; the shape of their request and answer, docs/mqtt.md),
 * answered from the embedded broker's rules (src/mqtt/access-rules.ts). They answer 200 with `allow` or `deny`;
 * a caller without the shared token gets 401. Not under the REST base path (not in OpenAPI), not rate limited:
 * the broker is their only caller, and it calls for every client. Failed authentications are throttled as on the
 * embedded broker (per username, and per device address when the broker sends `peerhost`): past the limit the
 * answer is `deny` without a password check. The platform's own user is checked and throttled like any other.
 * A client id another credential owns is refused (`claimClientId`, owners kept in the store for every instance).
 */
export function registerMqttAuthRoutes(app: FastifyInstance, deps: MqttAuthDeps): void {
  const throttle = new AuthThrottle(deps.authFailures, () => deps.clock.now());
  const platformUser = { username: deps.platform.username, passwordHash: hashPassword(deps.platform.password) };
  // Hashed at start; a failure (never expected) surfaces on the first authentication instead of unhandled.
  platformUser.passwordHash.catch(() => undefined);
  const credentials = new Map<string, { credential: MqttCredential | undefined; until: number }>();
  deps.events.onAnyInstance('mqttCredentialRevoked', ({ username }) => {
    credentials.delete(username);
  });
  const credentialOf = async (username: string): Promise<MqttCredential | undefined> => {
    const now = deps.clock.now();
    const cached = credentials.get(username);
    if (cached && cached.until > now) return cached.credential;
    const credential = await activeMqttCredential(deps, username);
    if (credentials.size >= 100_000) credentials.clear();
    credentials.set(username, { credential, until: now + credentialTtlMs });
    return credential;
  };

  app.register(async (scope) => {
    scope.addHook('onRequest', async (request) => {
      if (!sendsSharedToken(request, deps.secret))
        throw unauthenticated('The broker must send Authorization: Bearer with MQTT_AUTH_HTTP_SECRET.');
    });

    scope.post<{ Body: Static<typeof authenticateBody> }>('/mqtt/authenticate', { schema: { body: authenticateBody } }, async (request) => {
      const { username, password, clientid, peerhost } = request.body;
      if (throttle.isBlocked(username, peerhost)) return { result: 'deny', is_superuser: false };
      const who = await authenticateBrokerUser(deps, username, password, platformUser);
      if (!who) {
        throttle.recordFailure(username, peerhost);
        return { result: 'deny', is_superuser: false };
      }
      throttle.recordSuccess(username);
      // A client id belongs to the credential that first used it (src/domain/identity/client-id-ownership.ts); a
      // broker that does not send it cannot be protected from a takeover, so it is refused.
      const owned = clientid !== undefined && (await claimClientId(deps, clientid, username, deps.platform.username));
      return { result: owned ? 'allow' : 'deny', is_superuser: false };
    });

    scope.post<{ Body: Static<typeof authorizeBody> }>('/mqtt/authorize', { schema: { body: authorizeBody } }, async (request) => {
      const { username, topic, action } = request.body;
      let who: MqttPrincipal | 'platform' | undefined;
      // An MQTT_URL without a user names no platform user: an empty username gets nothing.
      if (deps.platform.username !== '' && username === deps.platform.username) who = 'platform';
      else {
        const credential = await credentialOf(username);
        who = credential && { username, organizationId: credential.organizationId, kind: credential.kind };
      }
      return { result: who && mayBrokerAllow(who, action, topic, deps.feedTemplate) ? 'allow' : 'deny' };
    });
  });
}
