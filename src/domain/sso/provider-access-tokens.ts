import { decodeJwt } from 'jose';
import type { OidcSettings } from '../../config/sso-config.js';
import { providerTokenSessionId, type ClientPrincipal, type UserPrincipal } from '../auth/principal.js';
import { TokenCache } from '../auth/token-cache.js';
import type { Clock } from '../clock.js';
import { unauthenticated } from '../errors.js';
import type { OidcRelyingParty } from './oidc-relying-party.js';
import { roleFromClaim } from './role-mapping.js';
import { SsoCheckFailed } from './sso-check.js';

/**
 * The identity provider's JWT access tokens as bearer tokens (OIDC_ACCEPT_ACCESS_TOKENS, SPEC section 15), for
 * service accounts: issuer, audience (OIDC_AUDIENCE) and algorithms pinned, the role from OIDC_ROLE_MAP, acting in
 * OIDC_ORGANIZATION. Verified tokens are kept (bounded) until their expiry, so a repeated token costs a map lookup.
 */
export class ProviderAccessTokens {
  private readonly verified = new TokenCache<UserPrincipal>(20_000);

  constructor(
    private readonly deps: { clock: Clock; relyingParty: OidcRelyingParty },
    private readonly settings: OidcSettings & { audience: string; organization: string },
  ) {}

  /**
   * The principal of a provider access token, as a GraphQL user (`me` answers its `sub`, e-mail and role);
   * undefined when the token is not the provider's (another issuer: the platform's own tokens). UNAUTHENTICATED
   * when it is the provider's but fails a check or maps to no role.
   */
  async verifyAsUser(token: string): Promise<UserPrincipal | undefined> {
    const now = this.deps.clock.now();
    const cached = this.verified.get(token, now);
    if (cached) return cached;
    if (!this.isProviderToken(token)) return undefined;
    const { keys } = await this.deps.relyingParty.provider().catch(() => {
      throw unauthenticated('The identity provider cannot be reached to check this token.');
    });
    let claims: Record<string, unknown> & { sub?: string; exp?: number };
    try {
      claims = await keys.verify(token, { audience: this.settings.audience, nowMs: now, requiredClaims: ['sub', 'exp'] });
    } catch (error) {
      throw unauthenticated(`The provider's access token failed the ${error instanceof SsoCheckFailed ? error.check : 'signature'} check.`);
    }
    const role = roleFromClaim(claims[this.settings.roleClaim], this.settings.roleMap);
    if (role === undefined) throw unauthenticated(`No value of the token's ${this.settings.roleClaim} claim is mapped to a role.`);
    const email = typeof claims['email'] === 'string' ? claims['email'] : '';
    const principal: UserPrincipal = {
      kind: 'user',
      organizationId: this.settings.organization,
      userId: claims.sub!,
      email: email || claims.sub!,
      role,
      sessionId: providerTokenSessionId,
      responsible: email || claims.sub!,
    };
    this.verified.set(token, principal, claims.exp! * 1000);
    return principal;
  }

  /** The same token as a REST caller: full access for a Manager, its role limiting what it may change otherwise. */
  async verifyAsClient(token: string): Promise<ClientPrincipal | undefined> {
    const user = await this.verifyAsUser(token);
    return (
      user && { kind: 'client', organizationId: user.organizationId, clientId: user.userId, responsible: user.responsible, role: user.role }
    );
  }

  /** Whether the token names the provider as its issuer (unverified: only to choose which verification applies). */
  private isProviderToken(token: string): boolean {
    try {
      return decodeJwt(token).iss === this.settings.issuer || decodeJwt(token).iss === `${this.settings.issuer}/`;
    } catch {
      return false;
    }
  }
}
