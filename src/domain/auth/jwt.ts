import { randomUUID } from 'node:crypto';
import { SignJWT, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { unauthenticated } from '../errors.js';
import type { SigningKeys } from './signing-keys.js';

export const tokenIssuer = 'thingdesk';

/**
 * The three kinds of token the platform signs. Each has its own audience, so none is accepted where another
 * belongs (a REST client token on GraphQL, an access token as a refresh token, and the reverse).
 */
export const audiences = { rest: 'rest', graphqlAccess: 'graphql', graphqlRefresh: 'graphql-refresh' } as const;
export type Audience = (typeof audiences)[keyof typeof audiences];

export interface SignedToken {
  token: string;
  jti: string;
  expiresAtMs: number;
}

/** Signs an EdDSA JWT with the current key (`kid` in the header), a random `jti`, `iat` and `exp`. */
export async function signToken(
  keys: SigningKeys,
  claims: Record<string, unknown>,
  options: { audience: Audience; subject: string; lifetimeS: number; nowMs: number },
): Promise<SignedToken> {
  const nowS = Math.floor(options.nowMs / 1000);
  const jti = randomUUID();
  const { kid, privateKey } = keys.signingKey();
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'EdDSA', kid, typ: 'JWT' })
    .setSubject(options.subject)
    // A random id makes every token distinct, even two issued in the same second (each gets its own rate budget).
    .setJti(jti)
    .setIssuer(tokenIssuer)
    .setAudience(options.audience)
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + options.lifetimeS)
    .sign(privateKey);
  return { token, jti, expiresAtMs: (nowS + options.lifetimeS) * 1000 };
}

/**
 * Verifies signature (a current or recently retired key), issuer, audience and expiry against the platform's
 * clock; UNAUTHENTICATED with a short reason otherwise. Only EdDSA is accepted, so `alg: none` and algorithm
 * confusion fail here.
 */
export async function verifyToken<T extends object>(
  keys: SigningKeys,
  token: string,
  options: { audience: Audience; nowMs: number; required: string[] },
): Promise<T & JWTPayload> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    throw unauthenticated('The token is malformed.');
  }
  const key = kid ? await keys.verificationKey(kid) : undefined;
  if (!key) throw unauthenticated('The token is not signed by a current key.');
  try {
    const { payload } = await jwtVerify<T & JWTPayload>(token, key, {
      algorithms: ['EdDSA'],
      issuer: tokenIssuer,
      audience: options.audience,
      currentDate: new Date(options.nowMs),
      requiredClaims: ['sub', 'exp', 'jti', ...options.required],
    });
    return payload;
  } catch (error) {
    const expired = (error as { code?: string }).code === 'ERR_JWT_EXPIRED';
    throw unauthenticated(expired ? 'The token has expired.' : 'The token is invalid.');
  }
}
