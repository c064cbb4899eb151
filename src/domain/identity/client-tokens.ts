import { SignJWT, jwtVerify, decodeProtectedHeader, type JWTPayload } from 'jose';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { unauthenticated } from '../errors.js';
import type { ClientPrincipal } from './principal.js';
import { verifySecret } from './secrets.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenCache } from './token-cache.js';

/** Client token lifetime (seed 000 part 5): 15 minutes. */
export const clientTokenLifetimeS = 900;
export const tokenIssuer = 'thingdesk';
/** Audience of REST client tokens; GraphQL access tokens carry `graphql`, so neither works on the other side. */
export const restAudience = 'rest';
// A revocation made by another instance (or the CLI) is seen within this long; one made here, at once.
const revocationRecheckMs = 1000;

interface ClientTokenClaims extends JWTPayload {
  org: string;
}

/**
 * REST client tokens (SPEC section 3): issued for a client id and secret, EdDSA-signed JWTs with `kid`, valid 15
 * minutes, many valid at once. Verification is cached per token; a revoked client's tokens stop working at once
 * on this instance and within a second on others.
 */
export class ClientTokens {
  private readonly verified = new TokenCache<ClientPrincipal>();
  private readonly revocations = new Map<string, { revoked: boolean; checkedAt: number }>();

  constructor(
    private readonly deps: { store: Store; clock: Clock; signingKeys: SigningKeys },
  ) {}

  /** Issues a token; UNAUTHENTICATED, the same for an unknown id, a wrong secret and a revoked client. */
  async issue(clientId: string, clientSecret: string): Promise<{ token: string; expiresIn: number }> {
    const client = await this.deps.store.apiClients.getWithSecretHash(clientId);
    // The HMAC check is microseconds either way, so an unknown id costs the same as a wrong secret.
    const secretMatches = verifySecret(client?.secretHash ?? 'hmac-sha256$AAAA$AAAA', clientSecret);
    if (!client || !secretMatches || client.revokedAt !== null) throw unauthenticated('Invalid client credentials.');
    const nowS = Math.floor(this.deps.clock.now() / 1000);
    const { kid, privateKey } = this.deps.signingKeys.signingKey();
    const token = await new SignJWT({ org: client.organizationId })
      .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
      .setSubject(client.clientId)
      .setIssuer(tokenIssuer)
      .setAudience(restAudience)
      .setIssuedAt(nowS)
      .setExpirationTime(nowS + clientTokenLifetimeS)
      .sign(privateKey);
    return { token, expiresIn: clientTokenLifetimeS };
  }

  /** The client behind a bearer token; UNAUTHENTICATED when invalid, expired, for another audience or revoked. */
  async verify(token: string): Promise<ClientPrincipal> {
    const now = this.deps.clock.now();
    let principal = this.verified.get(token, now);
    if (!principal) {
      const { principal: checked, expiresAtMs } = await this.verifySignature(token, now);
      principal = checked;
      this.verified.set(token, principal, expiresAtMs);
    }
    if (await this.isRevoked(principal.clientId, now)) throw unauthenticated('The API client has been revoked.');
    return principal;
  }

  /** Called when this instance revokes a client, so its tokens fail here at once. */
  forgetClient(clientId: string): void {
    this.revocations.set(clientId, { revoked: true, checkedAt: this.deps.clock.now() });
    this.verified.deleteWhere((p) => p.clientId === clientId);
  }

  private async verifySignature(token: string, now: number): Promise<{ principal: ClientPrincipal; expiresAtMs: number }> {
    let kid: string | undefined;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      throw unauthenticated('The token is malformed.');
    }
    const key = kid ? await this.deps.signingKeys.verificationKey(kid) : undefined;
    if (!key) throw unauthenticated('The token is not signed by a current key.');
    try {
      const { payload } = await jwtVerify<ClientTokenClaims>(token, key, {
        algorithms: ['EdDSA'],
        issuer: tokenIssuer,
        audience: restAudience,
        currentDate: new Date(now),
        requiredClaims: ['sub', 'exp', 'org'],
      });
      if (typeof payload.org !== 'string' || typeof payload.sub !== 'string') throw new Error('claims');
      return {
        principal: { kind: 'client', organizationId: payload.org, clientId: payload.sub, responsible: payload.sub },
        expiresAtMs: payload.exp! * 1000,
      };
    } catch (error) {
      const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
      throw unauthenticated(expired ? 'The token has expired.' : 'The token is invalid.');
    }
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
