import { createRemoteJWKSet, jwtVerify, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { SsoCheckFailed, checkOfJwtError } from './sso-check.js';

/** An unknown `kid` refetches the provider's keys at most this often (SPEC section 15). */
export const keyRefetchCooldownMs = 60_000;

/**
 * The identity provider's signing keys (its JWKS), fetched on first use and kept; a token signed with a key not in
 * the set refetches it, at most once a minute, so forged `kid`s cannot make the platform hammer the provider.
 * Verifies logout tokens and access tokens (ID tokens are verified by openid-client in the code exchange, and again
 * here for the pinned algorithms).
 */
export class ProviderKeys {
  private readonly keySet: ReturnType<typeof createRemoteJWKSet>;

  constructor(
    jwksUri: string,
    private readonly pinned: { issuer: string; algorithms: string[] },
  ) {
    this.keySet = createRemoteJWKSet(new URL(jwksUri), { cooldownDuration: keyRefetchCooldownMs, cacheMaxAge: 10 * 60_000 });
  }

  /** Verifies signature (pinned algorithms), issuer, audience and time claims; SsoCheckFailed naming the check otherwise. */
  async verify<T extends object>(
    token: string,
    options: { audience: string; nowMs: number; requiredClaims?: string[]; typ?: string },
  ): Promise<T & JWTPayload> {
    const verifyOptions: JWTVerifyOptions = {
      algorithms: this.pinned.algorithms,
      issuer: this.pinned.issuer,
      audience: options.audience,
      currentDate: new Date(options.nowMs),
      clockTolerance: 30,
      requiredClaims: options.requiredClaims,
      ...(options.typ !== undefined && { typ: options.typ }),
    };
    try {
      const { payload } = await jwtVerify<T & JWTPayload>(token, this.keySet, verifyOptions);
      return payload;
    } catch (error) {
      const check = checkOfJwtError(error);
      throw new SsoCheckFailed(check, `the token failed the ${check} check (${(error as { code?: string }).code ?? 'invalid'})`);
    }
  }
}
