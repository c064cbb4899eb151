/**
 * The checks a single sign-on can fail (SPEC section 15), named on the 400 page: the first that failed. Beyond the
 * spec's list: `provider` (the provider could not be reached or answered nonsense), `organization` (none to join),
 * `role` (no mapped role), `user` (OIDC_JIT=false and no such user).
 */
export type SsoCheck =
  'state' | 'code' | 'nonce' | 'issuer' | 'audience' | 'expiry' | 'signature' | 'e-mail' | 'organization' | 'role' | 'user' | 'provider';

/** A sign-in or logout token refused by one check; carries no token, code or secret (it may be logged). */
export class SsoCheckFailed extends Error {
  constructor(
    readonly check: SsoCheck,
    detail: string,
  ) {
    super(detail);
    this.name = 'SsoCheckFailed';
  }
}

/**
 * Which check a JWT verification error (jose, or openid-client's oauth4webapi) stands for, from its code and the claim
 * it names (openid-client nests oauth4webapi's error, whose `cause` names the claim). Anything about the key or the
 * algorithm is `signature`.
 */
export function checkOfJwtError(error: unknown): SsoCheck {
  let code: string | undefined;
  let claim: string | undefined;
  for (let link = error as { code?: unknown; claim?: unknown; cause?: unknown } | undefined, depth = 0; link && depth < 4; depth++) {
    if (typeof link !== 'object') break;
    if (code === undefined && typeof link.code === 'string') code = link.code;
    if (claim === undefined && typeof link.claim === 'string') claim = link.claim;
    link = link.cause as typeof link;
  }
  if (code === 'ERR_JWT_EXPIRED') return 'expiry';
  if (
    code === 'OAUTH_JWT_TIMESTAMP_CHECK_FAILED' ||
    code === 'ERR_JWT_CLAIM_VALIDATION_FAILED' ||
    code === 'OAUTH_JWT_CLAIM_COMPARISON_FAILED'
  ) {
    if (claim === 'exp') return 'expiry';
    if (claim === 'iss') return 'issuer';
    if (claim === 'aud' || claim === 'azp') return 'audience';
    if (claim === 'nonce') return 'nonce';
    if (claim === 'iat' || claim === 'nbf') return 'expiry';
  }
  return 'signature';
}
