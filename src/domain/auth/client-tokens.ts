import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { unauthenticated } from '../errors.js';
import type { DomainEventBus } from '../events.js';
import { audiences, signToken, verifyToken } from './jwt.js';
import type { ClientPrincipal } from './principal.js';
import { verifySecret } from '../identity/secrets.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenCache } from './token-cache.js';
import { recordAudit } from '../audit/audit-recorder.js';

/** Client token lifetime (seed 000 part 5): 15 minutes. */
export const clientTokenLifetimeS = 900;
// A revocation made by another instance (or the CLI) is seen within this long; one made here, at once.
const revocationRecheckMs = 1000;

/**
 * REST client tokens (SPEC section 3): issued for a client id and secret, EdDSA-signed JWTs with `kid`, valid 15
 * minutes, many valid at once. Verification is cached per token; a revoked client's tokens stop working at once
 * on this instance and within a second on others.
 */
export class ClientTokens {
  private readonly verified = new TokenCache<ClientPrincipal>();
  private readonly revocations = new Map<string, { revoked: boolean; checkedAt: number }>();

  constructor(private readonly deps: { store: Store; clock: Clock; signingKeys: SigningKeys; events: DomainEventBus }) {
    deps.events.onAnyInstance('apiClientRevoked', ({ clientId }) => this.forgetClient(clientId));
  }

  /** Issues a token; UNAUTHENTICATED, the same for an unknown id, a wrong secret and a revoked client. */
  async issue(clientId: string, clientSecret: string): Promise<{ token: string; expiresIn: number }> {
    const client = await this.deps.store.apiClients.getWithSecretHash(clientId);
    // The HMAC check is microseconds either way, so an unknown id costs the same as a wrong secret.
    const secretMatches = verifySecret(client?.secretHash ?? 'hmac-sha256$AAAA$AAAA', clientSecret);
    const actor = { type: 'api_client' as const, id: clientId, label: clientId };
    if (!client || !secretMatches || client.revokedAt !== null) {
      // A known client's failed sign-in goes to its organization's log (SPEC 14); an unknown id names no organization.
      if (client) {
        await recordAudit(this.deps, undefined, {
          organizationId: client.organizationId,
          action: 'auth.login_failed',
          target: { type: 'api_client', id: clientId },
          outcome: 'denied',
          context: { actor },
        });
      }
      throw unauthenticated('Invalid client credentials.');
    }
    await recordAudit(this.deps, undefined, {
      organizationId: client.organizationId,
      action: 'auth.login',
      target: { type: 'api_client', id: clientId },
      outcome: 'success',
      context: { actor },
    });
    const signed = await signToken(
      this.deps.signingKeys,
      { org: client.organizationId },
      {
        audience: audiences.rest,
        subject: client.clientId,
        lifetimeS: clientTokenLifetimeS,
        nowMs: this.deps.clock.now(),
      },
    );
    return { token: signed.token, expiresIn: clientTokenLifetimeS };
  }

  /** The client behind a bearer token; UNAUTHENTICATED when invalid, expired, for another audience or revoked. */
  async verify(token: string): Promise<ClientPrincipal> {
    const now = this.deps.clock.now();
    let principal = this.verified.get(token, now);
    if (!principal) {
      const payload = await verifyToken<{ org?: unknown }>(this.deps.signingKeys, token, {
        audience: audiences.rest,
        nowMs: now,
        required: ['org'],
      });
      if (typeof payload.org !== 'string') throw unauthenticated('The token is invalid.');
      principal = { kind: 'client', organizationId: payload.org, clientId: payload.sub!, responsible: payload.sub! };
      this.verified.set(token, principal, payload.exp! * 1000);
    }
    if (await this.isRevoked(principal.clientId, now)) throw unauthenticated('The API client has been revoked.');
    return principal;
  }

  /** A client revoked on this instance: its tokens fail here at once. */
  private forgetClient(clientId: string): void {
    this.revocations.set(clientId, { revoked: true, checkedAt: this.deps.clock.now() });
    this.verified.deleteWhere((p) => p.clientId === clientId);
  }

  private async isRevoked(clientId: string, now: number): Promise<boolean> {
    const known = this.revocations.get(clientId);
    if (known && (known.revoked || now - known.checkedAt < revocationRecheckMs)) return known.revoked;
    const client = await this.deps.store.apiClients.get(clientId);
    const revoked = !client || client.revokedAt !== null;
    this.revocations.set(clientId, { revoked, checkedAt: now });
    return revoked;
  }
}
