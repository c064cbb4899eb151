import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { DomainEventBus } from '../../domain/events.js';
import { activeMqttCredential, authenticateMqttCredential, type IdentityDeps } from '../../domain/identity/identity-service.js';
import type { MqttCredential } from '../../domain/identity/types.js';
import { unauthenticated } from '../../domain/errors.js';
import { mayBrokerAllow, type MqttPrincipal } from '../../mqtt/access-rules.js';
import { sendsSharedToken } from '../bearer-token.js';

export interface MqttAuthDeps extends IdentityDeps {
  events: DomainEventBus;
  /** MQTT_AUTH_HTTP_SECRET: the broker sends it as `Authorization: Bearer`. */
  secret: string;
  /** The platform's own broker user (from MQTT_URL): it may do what `platformAcl` allows, nothing else. */
  platform: { username: string; password: string };
  feedTemplate: string;
}

const authenticateBody = Type.Object({
  username: Type.String({ maxLength: 256 }),
  password: Type.String({ maxLength: 1024 }),
  clientid: Type.Optional(Type.String({ maxLength: 256 })),
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
 * the broker is their only caller, and it calls for every client.
 */
export function registerMqttAuthRoutes(app: FastifyInstance, deps: MqttAuthDeps): void {
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
      const { username, password } = request.body;
      if (username === deps.platform.username) {
        return { result: sameText(password, deps.platform.password) ? 'allow' : 'deny', is_superuser: false };
      }
      const credential = await authenticateMqttCredential(deps, username, password);
      return { result: credential ? 'allow' : 'deny', is_superuser: false };
    });

    scope.post<{ Body: Static<typeof authorizeBody> }>('/mqtt/authorize', { schema: { body: authorizeBody } }, async (request) => {
      const { username, topic, action } = request.body;
      let who: MqttPrincipal | 'platform' | undefined;
      if (username === deps.platform.username) who = 'platform';
      else {
        const credential = await credentialOf(username);
        who = credential && { username, organizationId: credential.organizationId, kind: credential.kind };
      }
      return { result: who && mayBrokerAllow(who, action, topic, deps.feedTemplate) ? 'allow' : 'deny' };
    });
  });
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
