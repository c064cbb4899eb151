import { randomUUID } from 'node:crypto';
import { recordAudit } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { systemActor } from '../audit/audit-context.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { AppError, unauthenticated, validationFailed } from '../errors.js';
import type { DomainEventBus, SessionEndReason } from '../events.js';
import { dummyPasswordHash } from '../identity/identity-service.js';
import { audiences, signToken, verifyToken } from './jwt.js';
import { AddressLoginThrottle, type AddressLoginLimits } from './address-login-throttle.js';
import { LoginThrottle } from './login-throttle.js';
import { providerTokenSessionId, type UserPrincipal } from './principal.js';
import type { SigningKeys } from './signing-keys.js';
import { TokenCache } from './token-cache.js';
import { checkLoginInputLengths } from '../identity/identity-rules.js';
import type { PasswordHasher } from '../identity/password-hashing.js';
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
  private readonly addressThrottle: AddressLoginThrottle;

  constructor(
    private readonly deps: {
      store: Store;
      clock: Clock;
      signingKeys: SigningKeys;
      events: DomainEventBus;
      /** The process's capped argon2 turns (password-hashing.ts). */
      passwords: PasswordHasher;
      /** Failed sign-ins per client address (LOGIN_FAILURES_PER_ADDRESS a minute). */
      addressLimits: AddressLoginLimits;
      /** AUTH_PASSWORD_LOGIN (default true); false: only a break-glass Manager signs in with a password. */
      passwordLogin?: boolean;
      /**
       * An identity provider's access tokens (OIDC_ACCEPT_ACCESS_TOKENS): the principal of such a token, undefined for
       * any other token (then verified as the platform's own).
       */
      providerAccess?: (token: string) => Promise<UserPrincipal | undefined>;
    },
  ) {
    this.throttle = new LoginThrottle(deps.store.loginAttempts);
    this.addressThrottle = new AddressLoginThrottle(deps.addressLimits, () => deps.clock.now());
    // Sessions ended elsewhere in the domain (a user deleted or given another role) stop working here at once.
    deps.events.onAnyInstance('sessionsEnded', ({ sessionIds }) => {
      for (const id of sessionIds) this.markEnded(id);
    });
  }

  /**
   * Signs in with e-mail, password and organization name. Every failure gives the same error and costs the same
   * (one argon2id verify, against a dummy hash when the account does not exist). Cheapest refusals first: input no
   * account can have (VALIDATION_FAILED), then, in memory, an address past its failed sign-ins, then, in the store,
   * an account past its own (both RATE_LIMITED); only then the argon2 verify, which waits for a turn of the
   * process's cap or is refused (SERVICE_UNAVAILABLE, retryable). `address`: the client's, as the transport sees it.
   */
  async login(input: {
    email: string;
    password: string;
    organizationName: string;
    address: string;
  }): Promise<TokenPair & { organizationId: string }> {
    const problems = checkLoginInputLengths(input);
    if (problems.length > 0) throw validationFailed(problems);
    this.addressThrottle.claim(input.address);
    // A success gives the address its attempt back; so does a refusal for lack of an argon2 turn (the platform's
    // load, not a failed guess). Anything else counts as a failure of the address.
    let giveBack = false;
    try {
      const result = await this.checkPasswordAndStart(input);
      giveBack = true;
      return result;
    } catch (error) {
      giveBack = error instanceof AppError && error.code === 'SERVICE_UNAVAILABLE';
      throw error;
    } finally {
      if (giveBack) this.addressThrottle.release(input.address);
    }
  }

  private async checkPasswordAndStart(input: {
    email: string;
    password: string;
    organizationName: string;
  }): Promise<TokenPair & { organizationId: string }> {
    const now = this.deps.clock.now();
    const key = LoginThrottle.key(input.organizationName, input.email);
    const attempt = await this.throttle.claim(key, now);
    const organization = await this.deps.store.organizations.getByName(input.organizationName.trim());
    const user = organization && (await this.deps.store.users.getWithPasswordHashByEmail(organization.id, input.email.trim()));
    const passwordMatches = await this.deps.passwords.verify(user?.passwordHash ?? (await dummyPasswordHash()), input.password);
    if (!organization || !user || !passwordMatches) {
      await this.throttle.recordFailure(key, now, attempt);
      // Into the log of the organization named, where it exists.
      if (organization) await this.recordLoginFailure(organization.id, user?.id ?? null, input.email);
      throw loginFailed();
    }
    // AUTH_PASSWORD_LOGIN=false: the password is right, but only a break-glass Manager may use it. The answer is the
    // same as for a wrong one, so it tells nobody which passwords are right.
    if (this.deps.passwordLogin === false && !(user.breakGlass && user.role === 'Manager')) {
      await this.recordLoginFailure(organization.id, user.id, input.email);
      throw loginFailed();
    }
    await this.throttle.recordSuccess(key);
    return this.startSession(user, now);
  }

  /** `auth.login_failed`, the e-mail tried as the actor's label. */
  private async recordLoginFailure(organizationId: string, userId: string | null, email: string): Promise<void> {
    await recordAudit(this.deps, undefined, {
      organizationId,
      action: 'auth.login_failed',
      target: { type: 'user', id: userId },
      outcome: 'denied',
      context: { actor: { type: 'user', id: userId, label: email.trim() } },
    });
  }

  /**
   * Starts a seed-001 session for a user the identity provider vouched for (single sign-on), remembering the provider
   * session (`sid`) and subject (`sub`) it came from, so a back-channel logout can end it.
   */
  async startSsoSession(user: User, sso: { sid: string | undefined; sub: string }): Promise<TokenPair & { organizationId: string }> {
    return this.startSession(user, this.deps.clock.now(), sso);
  }

  private async startSession(
    user: User,
    now: number,
    sso?: { sid: string | undefined; sub: string },
  ): Promise<TokenPair & { organizationId: string }> {
    const sessionId = randomUUID();
    const pair = await this.issuePair(user, sessionId, now);
    const actor = { type: 'user' as const, id: user.id, label: user.email };
    await recordAudit(this.deps, undefined, {
      organizationId: user.organizationId,
      action: 'auth.login',
      target: { type: 'session', id: sessionId },
      outcome: 'success',
      context: { actor },
    });
    await this.deps.store.sessions.create({
      id: sessionId,
      organizationId: user.organizationId,
      userId: user.id,
      refreshJti: pair.refreshJti,
      createdAt: now,
      refreshedAt: now,
      expiresAt: now + refreshTokenLifetimeS * 1000,
      endedAt: null,
      endReason: null,
      ssoSid: sso?.sid ?? null,
      ssoSub: sso?.sub ?? null,
    });
    return { ...pair.tokens, organizationId: user.organizationId };
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
    await recordAudit(this.deps, undefined, {
      organizationId: session.organizationId,
      action: 'auth.refresh',
      target: { type: 'session', id: sessionId },
      outcome: 'success',
      context: { actor: { type: 'user', id: user.id, label: user.email } },
    });
    return pair.tokens;
  }

  /** Ends the caller's session: its access and refresh tokens stop working. */
  async logout(principal: UserPrincipal): Promise<boolean> {
    return this.endSession(principal.sessionId, 'logout', principal);
  }

  /**
   * Whether a session may still carry live streams, read from the store so that an end on another instance is
   * seen: undefined while it is active, else why it ended ('expired' when its refresh lifetime ran out).
   */
  async endReasonOf(sessionId: string): Promise<string | undefined> {
    if (sessionId === providerTokenSessionId) return undefined;
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
    if (!principal && this.deps.providerAccess) {
      const external = await this.deps.providerAccess(token);
      if (external) return external;
    }
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

  private async endSession(sessionId: string, reason: SessionEndReason, principal?: UserPrincipal): Promise<boolean> {
    const session = await this.deps.store.sessions.get(sessionId);
    const ended = await this.deps.store.transaction(async () => {
      const ended = await this.deps.store.sessions.end(sessionId, this.deps.clock.now(), reason);
      if (ended && session) {
        await recordAudit(this.deps, principal, {
          organizationId: session.organizationId,
          action: reason === 'logout' ? 'auth.logout' : 'session.end',
          target: { type: 'session', id: sessionId },
          outcome: 'success',
          details: auditFields({ reason, userId: session.userId }),
          ...(!principal && { context: { actor: systemActor } }),
        });
      }
      return ended;
    });
    this.markEnded(sessionId);
    this.deps.events.emit('sessionsEnded', { sessionIds: [sessionId], reason });
    return ended;
  }

  private markEnded(sessionId: string): void {
    this.sessionStates.set(sessionId, { active: false, checkedAt: this.deps.clock.now() });
  }

  private async isSessionActive(sessionId: string, now: number): Promise<boolean> {
    // A provider's access token has no session here: it stands until its own expiry (checked where it was verified).
    if (sessionId === providerTokenSessionId) return true;
    const known = this.sessionStates.get(sessionId);
    if (known && (!known.active || now - known.checkedAt < sessionRecheckMs)) return known.active;
    const session = await this.deps.store.sessions.get(sessionId);
    const active = !!session && session.endedAt === null && session.expiresAt > now;
    if (this.sessionStates.size > 100_000) this.sessionStates.clear();
    this.sessionStates.set(sessionId, { active, checkedAt: now });
    return active;
  }
}
