import { createHash } from 'node:crypto';
import * as client from 'openid-client';
import type { OidcSettings } from '../../config/sso-config.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { ProviderKeys } from './provider-keys.js';
import { SsoCheckFailed, checkOfJwtError } from './sso-check.js';

/** How long a sign-in may take at the provider before its state is forgotten. */
const signInStateTtlMs = 10 * 60_000;

/** What a sign-in keeps between the redirect to the provider and the callback (in the store, for every instance). */
interface PendingSignIn {
  nonce: string;
  codeVerifier: string;
  next: string;
}

/** The verified ID token of a finished sign-in. */
export interface ProviderIdentity {
  claims: Record<string, unknown> & { sub: string };
  /** The provider session (`sid`), when the provider names one (back-channel logout ends by it). */
  sid: string | undefined;
  next: string;
  /** The ID token, for the provider's end_session_endpoint (`id_token_hint`); never logged. */
  idToken: string;
}

/** Where a `next` may point: a path of this platform starting with a single `/`; anything else becomes `/`. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || next.length > 2000) return '/';
  if (!next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return '/';
  // No control characters or backslashes anywhere: browsers fold `\` into `/` and drop tabs and newlines.
  if ([...next].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f || char === '\\')) return '/';
  return next.split('#')[0]!;
}

/** The store key of a secret value (state, code): its hash, so a store dump reveals no usable value. */
export function oneTimeKey(kind: string, value: string): string {
  return `${kind}:${createHash('sha256').update(value).digest('base64url')}`;
}

/**
 * The OpenID Connect relying party (SPEC section 15), with openid-client: discovery on first use (retried on the
 * next sign-in when the provider was unreachable), the authorization code flow with PKCE S256, `state` and `nonce`
 * held in the store until the callback takes them (so any instance may answer it, and each works once), and the ID
 * token checked by openid-client (issuer, audience, expiry, nonce, signature) and again against the pinned
 * algorithms and the provider's keys.
 */
export class OidcRelyingParty {
  private discovered: Promise<{ configuration: client.Configuration; keys: ProviderKeys }> | undefined;

  constructor(
    private readonly deps: { store: Store; clock: Clock },
    private readonly settings: OidcSettings,
    private readonly publicUrl: string,
  ) {}

  get redirectUri(): string {
    return `${this.publicUrl}/auth/oidc/callback`;
  }

  /** The provider's metadata and keys, discovered once; a failed discovery is tried again next time. */
  provider(): Promise<{ configuration: client.Configuration; keys: ProviderKeys }> {
    this.discovered ??= this.discover().catch((error: unknown) => {
      this.discovered = undefined;
      throw new SsoCheckFailed('provider', `discovery at ${this.settings.issuer} failed: ${(error as Error).message}`);
    });
    return this.discovered;
  }

  private async discover(): Promise<{ configuration: client.Configuration; keys: ProviderKeys }> {
    const secret = this.settings.clientSecret;
    const auth =
      secret === undefined
        ? client.None()
        : this.settings.clientAuth === 'client_secret_post'
          ? client.ClientSecretPost(secret)
          : client.ClientSecretBasic(secret);
    const insecure = new URL(this.settings.issuer).protocol === 'http:';
    const configuration = await client.discovery(
      new URL(this.settings.issuer),
      this.settings.clientId,
      undefined,
      auth,
      insecure ? { execute: [client.allowInsecureRequests] } : undefined,
    );
    const jwksUri = configuration.serverMetadata().jwks_uri;
    if (!jwksUri) throw new Error('the provider names no jwks_uri');
    return {
      configuration,
      keys: new ProviderKeys(jwksUri, { issuer: configuration.serverMetadata().issuer, algorithms: this.settings.algorithms }),
    };
  }

  /** Starts a sign-in: the provider's authorization URL and the state the browser must bring back (also in a cookie). */
  async begin(next: string): Promise<{ url: string; state: string }> {
    const { configuration } = await this.provider();
    const state = client.randomState();
    const pending: PendingSignIn = { nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier(), next: safeNext(next) };
    const now = this.deps.clock.now();
    await this.deps.store.ssoOneTime.put(oneTimeKey('state', state), JSON.stringify(pending), now + signInStateTtlMs, now);
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: this.settings.scopes,
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state,
      nonce: pending.nonce,
    });
    return { url: url.href, state };
  }

  /**
   * Finishes a sign-in from the callback's query: the state must be the one this browser started (its cookie) and
   * still pending (each works once), the code is exchanged with the PKCE verifier, the ID token checked.
   */
  async complete(query: URLSearchParams, stateCookie: string | undefined): Promise<ProviderIdentity> {
    const state = query.get('state');
    if (!state || stateCookie === undefined || state !== stateCookie)
      throw new SsoCheckFailed('state', 'the state is missing or is not the one this browser started');
    const now = this.deps.clock.now();
    const stored = await this.deps.store.ssoOneTime.take(oneTimeKey('state', state), now);
    if (stored === undefined) throw new SsoCheckFailed('state', 'the state is unknown, expired or already used');
    const pending = JSON.parse(stored) as PendingSignIn;
    if (query.has('error')) throw new SsoCheckFailed('code', `the provider answered ${String(query.get('error')).slice(0, 80)}`);
    if (!query.get('code')) throw new SsoCheckFailed('code', 'the callback carries no code');
    const { configuration, keys } = await this.provider();
    const callbackUrl = new URL(this.redirectUri);
    for (const [name, value] of query) callbackUrl.searchParams.append(name, value);
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw exchangeFailure(error);
    }
    const idToken = tokens.id_token!;
    // Again with the platform's own rules: only the pinned (asymmetric) algorithms, the provider's current keys.
    const claims = await keys.verify<Record<string, unknown>>(idToken, {
      audience: this.settings.clientId,
      nowMs: now,
      requiredClaims: ['sub', 'exp', 'iat'],
    });
    if (claims.nonce !== pending.nonce) throw new SsoCheckFailed('nonce', 'the ID token carries another nonce');
    return {
      claims: claims as ProviderIdentity['claims'],
      sid: typeof claims.sid === 'string' ? claims.sid : undefined,
      next: pending.next,
      idToken,
    };
  }

  /** The provider's end_session_endpoint URL for a sign-out, or undefined when it offers none. */
  async endSessionUrl(idTokenHint: string | undefined, postLogoutRedirect: string): Promise<string | undefined> {
    const { configuration } = await this.provider();
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    const parameters: Record<string, string> = { client_id: this.settings.clientId, post_logout_redirect_uri: postLogoutRedirect };
    if (idTokenHint) parameters['id_token_hint'] = idTokenHint;
    return client.buildEndSessionUrl(configuration, parameters).href;
  }
}

/** Which check a failed code exchange stands for: the provider refusing the code (or its PKCE verifier) is `code`. */
function exchangeFailure(error: unknown): SsoCheckFailed {
  if (error instanceof SsoCheckFailed) return error;
  const { code, error: oauthError } = error as { code?: string; error?: string };
  if (code === 'OAUTH_RESPONSE_BODY_ERROR' || oauthError === 'invalid_grant')
    return new SsoCheckFailed('code', `the provider refused the code (${oauthError ?? 'error'})`);
  if (code === 'OAUTH_AUTHORIZATION_RESPONSE_ERROR') return new SsoCheckFailed('code', `the provider answered ${oauthError ?? 'an error'}`);
  if (error instanceof TypeError && /fetch failed/.test(error.message))
    return new SsoCheckFailed('provider', 'the token endpoint is unreachable');
  const check = checkOfJwtError(error);
  return new SsoCheckFailed(check, `the ID token failed the ${check} check (${code ?? (error as Error).message})`);
}
