import { postGraphql } from './graphql-http';
import { StudioError } from './errors';

/** The tokens of a signed-in session, shared by the studio's tabs through localStorage. Times in epoch ms. */
export interface SessionTokens {
  accessToken: string;
  refreshToken: string;
  organizationId: string;
  accessExpiresAt: number;
  refreshExpiresAt: number;
  /** Signed in through the identity provider (single sign-on): signing out also signs out there. */
  sso?: boolean;
}

const storageKey = 'thingdesk.studio.session';
/** Seed 001 advises refreshing before the access token expires; a minute leaves room for a slow network. */
const refreshMarginMs = 60_000;

const loginMutation = /* GraphQL */ `
  mutation StudioLogin($loginInput: LoginInput!) {
    login(loginInput: $loginInput) {
      accessToken
      expiresIn
      refreshToken
      refreshExpiresIn
      organizationId
    }
  }
`;
const refreshMutation = /* GraphQL */ `
  mutation StudioRefresh($refreshTokenInput: RefreshTokenInput!) {
    refreshToken(refreshTokenInput: $refreshTokenInput) {
      accessToken
      expiresIn
      refreshToken
      refreshExpiresIn
    }
  }
`;
const logoutMutation = /* GraphQL */ `
  mutation StudioLogout {
    logout {
      success
    }
  }
`;

function readStored(): SessionTokens | null {
  try {
    const value = JSON.parse(localStorage.getItem(storageKey) ?? 'null') as SessionTokens | null;
    return value && value.refreshExpiresAt > Date.now() ? value : null;
  } catch {
    return null;
  }
}

/**
 * The signed-in session: sign-in with seed 001's `login`, refresh before expiry with `refreshToken`, sign-out with
 * `logout`. Refresh tokens work once (a second use ends the session), so the studio's tabs share one session:
 * the tokens live in localStorage, a refresh runs under a Web Lock and first re-reads what another tab may have
 * refreshed meanwhile. When the session cannot go on (expired, ended elsewhere), `onEnded` listeners run (the app
 * returns to sign-in, remembering the page).
 */
class Session {
  tokens = $state<SessionTokens | null>(readStored());
  #timer: ReturnType<typeof setTimeout> | undefined;
  #refreshing: Promise<SessionTokens | null> | undefined;
  #endedListeners = new Set<(reason: string) => void>();

  constructor() {
    window.addEventListener('storage', (event) => {
      if (event.key !== storageKey) return;
      const before = this.tokens;
      this.tokens = readStored();
      if (before && !this.tokens) this.#notifyEnded('You signed out in another tab.');
      this.#schedule();
    });
    this.#schedule();
  }

  get signedIn(): boolean {
    return this.tokens !== null;
  }

  onEnded(listener: (reason: string) => void): () => void {
    this.#endedListeners.add(listener);
    return () => this.#endedListeners.delete(listener);
  }

  async signIn(email: string, organizationName: string, password: string): Promise<void> {
    const { login } = await postGraphql<{
      login: { accessToken: string; expiresIn: number; refreshToken: string; refreshExpiresIn: number; organizationId: string };
    }>(loginMutation, { loginInput: { email, organizationName, password } });
    const now = Date.now();
    this.#store({
      accessToken: login.accessToken,
      refreshToken: login.refreshToken,
      organizationId: login.organizationId,
      accessExpiresAt: now + login.expiresIn * 1000,
      refreshExpiresAt: now + login.refreshExpiresIn * 1000,
    });
  }

  /**
   * Single sign-on's last step: the platform sent the browser back with a one-time code in the fragment (`#sso=CODE`,
   * valid 60 s, works once); it is taken out of the address at once and exchanged for a session. A failure is kept
   * in `ssoError` for the sign-in page.
   */
  async completeSso(): Promise<void> {
    const match = /^#sso=([A-Za-z0-9_-]{20,200})$/.exec(location.hash);
    if (!match) return;
    history.replaceState(history.state, '', `${location.pathname}${location.search}`);
    try {
      const response = await fetch('/auth/oidc/session', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ code: match[1] }),
      });
      const body = (await response.json()) as {
        data?: { accessToken: string; expiresIn: number; refreshToken: string; refreshExpiresIn: number; organizationId: string };
        message?: string;
      };
      if (!response.ok || !body.data) throw new Error(body.message ?? `Single sign-on failed (${response.status}).`);
      const now = Date.now();
      this.#store({
        accessToken: body.data.accessToken,
        refreshToken: body.data.refreshToken,
        organizationId: body.data.organizationId,
        accessExpiresAt: now + body.data.expiresIn * 1000,
        refreshExpiresAt: now + body.data.refreshExpiresIn * 1000,
        sso: true,
      });
    } catch (error) {
      this.ssoError = error instanceof Error ? error.message : String(error);
    }
  }

  ssoError = $state('');

  /**
   * Ends the session on the platform (its tokens stop working everywhere), then forgets it here. True when it came
   * from single sign-on: the caller then also signs out at the provider (`/auth/oidc/logout`).
   */
  async signOut(): Promise<boolean> {
    const sso = this.tokens?.sso === true;
    const token = await this.accessToken().catch(() => null);
    if (token) await postGraphql(logoutMutation, {}, token).catch(() => undefined);
    this.#store(null);
    return sso;
  }

  /** A valid access token, refreshed first when it expires within a minute; null when signed out. */
  async accessToken(): Promise<string | null> {
    const tokens = this.tokens;
    if (!tokens) return null;
    if (tokens.accessExpiresAt - Date.now() > refreshMarginMs) return tokens.accessToken;
    const refreshed = await this.refresh();
    return refreshed?.accessToken ?? null;
  }

  /** Exchanges the refresh token for a new pair, once for all tabs. */
  refresh(): Promise<SessionTokens | null> {
    this.#refreshing ??= this.#refreshShared().finally(() => (this.#refreshing = undefined));
    return this.#refreshing;
  }

  /** The session is over (the platform refused its token): forget it and tell the app. */
  end(reason: string): void {
    if (!this.tokens) return;
    this.#store(null);
    this.#notifyEnded(reason);
  }

  async #refreshShared(): Promise<SessionTokens | null> {
    const run = async () => {
      // Another tab may have refreshed while this one waited for the lock: its pair is the current one.
      const current = readStored();
      if (!current) return null;
      if (current.accessExpiresAt - Date.now() > refreshMarginMs) {
        this.tokens = current;
        return current;
      }
      try {
        const { refreshToken } = await postGraphql<{
          refreshToken: { accessToken: string; expiresIn: number; refreshToken: string; refreshExpiresIn: number };
        }>(refreshMutation, { refreshTokenInput: { organizationId: current.organizationId, refreshToken: current.refreshToken } });
        const now = Date.now();
        const next: SessionTokens = {
          ...(current.sso && { sso: true }),
          accessToken: refreshToken.accessToken,
          refreshToken: refreshToken.refreshToken,
          organizationId: current.organizationId,
          accessExpiresAt: now + refreshToken.expiresIn * 1000,
          refreshExpiresAt: now + refreshToken.refreshExpiresIn * 1000,
        };
        this.#store(next);
        return next;
      } catch (error) {
        // A network failure keeps the session (the next request tries again); a refused token ends it.
        if (error instanceof StudioError && error.code === 'NETWORK') return current;
        this.end('Your session has ended. Sign in again to go on where you were.');
        return null;
      }
    };
    // Web Locks exist only in secure contexts (HTTPS or localhost); elsewhere tabs refresh on their own.
    return navigator.locks ? navigator.locks.request('thingdesk-studio-refresh', run) : run();
  }

  #store(tokens: SessionTokens | null): void {
    this.tokens = tokens;
    if (tokens) localStorage.setItem(storageKey, JSON.stringify(tokens));
    else localStorage.removeItem(storageKey);
    this.#schedule();
  }

  #schedule(): void {
    clearTimeout(this.#timer);
    const tokens = this.tokens;
    if (!tokens) return;
    const due = Math.max(1_000, tokens.accessExpiresAt - refreshMarginMs - Date.now());
    this.#timer = setTimeout(() => void this.refresh(), due);
  }

  #notifyEnded(reason: string): void {
    for (const listener of this.#endedListeners) listener(reason);
  }
}

export const session = new Session();
