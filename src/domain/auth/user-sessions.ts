import { randomUUID } from 'node:crypto';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { unauthenticated } from '../errors.js';
import type { DomainEventBus, SessionEndReason } from '../events.js';
import { dummyPasswordHash } from '../identity/identity-service.js';
import { audiences, signToken, verifyToken } from './jwt.js';
import { LoginThrottle } from './login-throttle.js';
import type { UserPrincipal } from './principal.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenCache } from './token-cache.js';
import { verifyPassword } from '../identity/secrets.js';
import type { Role, User } from '../identity/types.js';

/** Token lifetimes of seed 001: access 15 minutes, refresh 12 hours. */
export const accessTokenLifetimeS = 900;
export const refreshTokenLifetimeS = 43_200;
// A logout or reuse detected by another instance is seen within this long; on this instance, at once.
const sessionRecheckMs = 1000;

export interface TokenPair {
  accessToken: string;
  expiresIn: number;
  refreshToken: string;
  refreshExpiresIn: number;
}

const loginFailed = () => unauthenticated('Invalid e-mail, password or organization.');

/**
 * Sign-in sessions of the GraphQL interface (SPEC section 4). A session lives in the store with the id of its one
 * usable refresh token: each refresh rotates it, and presenting a used one ends the whole session (a stolen token
 * is detected the moment either party uses it after the other). Logout ends the session; its access tokens stop
 * working at once on this instance and within a second on every other, without a store read per request.
 */
export class UserSessions {
  private readonly verified = new TokenCache<UserPrincipal>();
  private readonly sessionStates = new Map<string, { active: boolean; checkedAt: number }>();
  private readonly throttle: LoginThrottle;

  constructor(private readonly deps: { store: Store; clock: Clock; signingKeys: SigningKeys; events: DomainEventBus }) {
    this.throttle = new LoginThrottle(deps.store.loginAttempts);
    // Sessions ended elsewhere in the domain (a user deleted or given another role) stop working here at once.
    deps.events.onAnyInstance('sessionsEnded', ({ sessionIds }) => {
      for (const id of sessionIds) this.markEnded(id);
    });
  }

  /**
   * Signs in with e-mail, password and organization name. Every failure gives the same error and costs the same
   * (one argon2id verify, against a dummy hash when the account does not exist); repeated failures for one account
   * are throttled (RATE_LIMITED).
   */
  async login(input: { email: string; password: string; organizationName: string }): Promise<TokenPair & { organizationId: string }> {
    const now = this.deps.clock.now();
    const key = LoginThrottle.key(input.organizationName, input.email);
    const attempt = await this.throttle.claim(key, now);
    const organization = await this.deps.store.organizations.getByName(input.organizationName.trim());
    const user = organization && (await this.deps.store.users.getWithPasswordHashByEmail(organization.id, input.email.trim()));
    const passwordMatches = await verifyPassword(user?.passwordHash ?? (await dummyPasswordHash()), input.password);
    if (!organization || !user || !passwordMatches) {
      await this.throttle.recordFailure(key, now, attempt);
      throw loginFailed();
    }
    await this.throttle.recordSuccess(key);
    const sessionId = randomUUID();
    const pair = await this.issuePair(user, sessionId, now);
    await this.deps.store.sessions.create({
      id: sessionId,
      organizationId: organization.id,
      userId: user.id,
      refreshJti: pair.refreshJti,
      createdAt: now,
      refreshedAt: now,
      expiresAt: now + refreshTokenLifetimeS * 1000,
      endedAt: null,
      endReason: null,
    });
    return { ...pair.tokens, organizationId: organization.id };
  }

  /** Rotates the refresh token. A used (or concurrently used) refresh token ends the whole session. */
  async refresh(input: { organizationId: string; refreshToken: string }): Promise<TokenPair> {
    const now = this.deps.clock.now();
    const claims = await verifyToken<{ org?: unknown; sid?: unknown }>(this.deps.signingKeys, input.refreshToken, {
      audience: audiences.graphqlRefresh,
      nowMs: now,
      required: ['org', 'sid'],
    });
    if (claims.org !== input.organizationId) throw unauthenticated('The refresh token does not belong to this organization.');
    const sessionId = String(claims.sid);
    const session = await this.deps.store.sessions.get(sessionId);
    if (!session || session.endedAt !== null) throw unauthenticated('The session has ended; sign in again.');
    if (session.refreshJti !== claims.jti) {
      await this.endSession(sessionId, 'refresh token reused');
      throw unauthenticated('This refresh token was already used; the session has been ended. Sign in again.');
    }
    const user = await this.deps.store.users.get(session.organizationId, session.userId);
    if (!user) {
      await this.endSession(sessionId, 'user deleted');
      throw unauthenticated('The session has ended; sign in again.');
    }
    const pair = await this.issuePair(user, sessionId, now);
    const rotated = await this.deps.store.sessions.rotate(sessionId, claims.jti!, {
      jti: pair.refreshJti,
      refreshedAt: now,
      expiresAt: now + refreshTokenLifetimeS * 1000,
    });
    if (!rotated) {
      // Another refresh with the same token won the race: the token was used twice.
      await this.endSession(sessionId, 'refresh token reused');
      throw unauthenticated('This refresh token was already used; the session has been ended. Sign in again.');
    }
    return pair.tokens;
  }

  /** Ends the caller's session: its access and refresh tokens stop working. */
  async logout(principal: UserPrincipal): Promise<boolean> {
    return this.endSession(principal.sessionId, 'logout');
  }

  /**
   * Whether a session may still carry live streams, read from the store so that an end on another instance is
   * seen: undefined while it is active, else why it ended ('expired' when its refresh lifetime ran out).
   */
  async endReasonOf(sessionId: string): Promise<string | undefined> {
    const now = this.deps.clock.now();
    const session = await this.deps.store.sessions.get(sessionId);
    if (session && session.endedAt === null && session.expiresAt > now) return undefined;
    this.markEnded(sessionId);
    return session?.endReason ?? 'expired';
  }

  /** Throws UNAUTHENTICATED when the principal's session has ended (cached for a second, like verifyAccess). */
  async assertSessionActive(principal: UserPrincipal): Promise<void> {
    if (!(await this.isSessionActive(principal.sessionId, this.deps.clock.now())))
      throw unauthenticated('The session has ended; sign in again.');
  }

  /** The user behind an access token; UNAUTHENTICATED when invalid, expired or its session has ended. */
  async verifyAccess(token: string): Promise<UserPrincipal> {
    const now = this.deps.clock.now();
    let principal = this.verified.get(token, now);
    if (!principal) {
      const claims = await verifyToken<{ org?: unknown; sid?: unknown; role?: unknown; email?: unknown }>(this.deps.signingKeys, token, {
        audience: audiences.graphqlAccess,
        nowMs: now,
        required: ['org', 'sid', 'role'],
      });
      principal = {
        kind: 'user',
        userId: claims.sub!,
        organizationId: String(claims.org),
        sessionId: String(claims.sid),
        role: claims.role as Role,
        email: String(claims.email ?? ''),
        responsible: String(claims.email ?? claims.sub),
      };
      this.verified.set(token, principal, claims.exp! * 1000);
    }
    if (!(await this.isSessionActive(principal.sessionId, now))) throw unauthenticated('The session has ended; sign in again.');
    return principal;
  }

  private async issuePair(user: User, sessionId: string, now: number): Promise<{ tokens: TokenPair; refreshJti: string }> {
    const { signingKeys } = this.deps;
    const access = await signToken(
      signingKeys,
      { org: user.organizationId, role: user.role, sid: sessionId, email: user.email },
      {
        audience: audiences.graphqlAccess,
        subject: user.id,
        lifetimeS: accessTokenLifetimeS,
        nowMs: now,
      },
    );
    const refresh = await signToken(
      signingKeys,
      { org: user.organizationId, sid: sessionId },
      {
        audience: audiences.graphqlRefresh,
        subject: user.id,
        lifetimeS: refreshTokenLifetimeS,
        nowMs: now,
      },
    );
    return {
      tokens: {
        accessToken: access.token,
        expiresIn: accessTokenLifetimeS,
        refreshToken: refresh.token,
        refreshExpiresIn: refreshTokenLifetimeS,
      },
      refreshJti: refresh.jti,
    };
  }

  private async endSession(sessionId: string, reason: SessionEndReason): Promise<boolean> {
    const ended = await this.deps.store.sessions.end(sessionId, this.deps.clock.now(), reason);
    this.markEnded(sessionId);
    this.deps.events.emit('sessionsEnded', { sessionIds: [sessionId], reason });
    return ended;
  }

  private markEnded(sessionId: string): void {
    this.sessionStates.set(sessionId, { active: false, checkedAt: this.deps.clock.now() });
  }

  private async isSessionActive(sessionId: string, now: number): Promise<boolean> {
    const known = this.sessionStates.get(sessionId);
    if (known && (!known.active || now - known.checkedAt < sessionRecheckMs)) return known.active;
    const session = await this.deps.store.sessions.get(sessionId);
    const active = !!session && session.endedAt === null && session.expiresAt > now;
    if (this.sessionStates.size > 100_000) this.sessionStates.clear();
    this.sessionStates.set(sessionId, { active, checkedAt: now });
    return active;
  }
}
