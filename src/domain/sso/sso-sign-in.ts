import { randomBytes, randomUUID } from 'node:crypto';
import type { OidcSettings } from '../../config/sso-config.js';
import type { Logger } from '../../observability/logger.js';
import type { Store } from '../../store/store.js';
import { recordAudit } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import { endSessionsOfUser } from '../auth/session-ending.js';
import type { TokenPair, UserSessions } from '../auth/user-sessions.js';
import type { Clock } from '../clock.js';
import { DuplicateKeyError, unauthenticated, validationFailed } from '../errors.js';
import type { DomainEventBus } from '../events.js';
import type { Role, User } from '../identity/types.js';
import { endSessionsByLogoutToken } from './backchannel-logout.js';
import { oneTimeKey, type OidcRelyingParty, type ProviderIdentity } from './oidc-relying-party.js';
import { isLowerRole, roleFromClaim } from './role-mapping.js';
import { SsoCheckFailed, type SsoCheck } from './sso-check.js';

/** The one-time code handed to the studio in the URL fragment is valid this long (SPEC section 15). */
export const signInCodeTtlMs = 60_000;
/** Stored as the password hash of a user created by single sign-on: no argon2 hash, so no password matches it. */
const noPassword = 'sso-only';

export interface SsoDeps {
  store: Store;
  clock: Clock;
  events: DomainEventBus;
  sessions: UserSessions;
  logger: Logger;
}

/** A sign-in that succeeded: who, in which organization, with which role. No token or code. */
export interface SsoSignInSuccess {
  organizationId: string;
  userId: string;
  email: string;
  role: Role;
  /** The role before this sign-in when it was lowered (the user's other sessions were ended). */
  demotedFrom: Role | undefined;
  created: boolean;
}

/** A sign-in that failed: the check, the organization it was meant for and the e-mail tried, where known. */
export interface SsoSignInFailure {
  organizationId: string | undefined;
  check: SsoCheck;
  email: string | undefined;
  detail: string;
}

/**
 * Records a single sign-on that succeeded (the one place to hang the audit log's `auth.login`). Logs carry no
 * token, code or secret.
 */
export async function ssoSignInSucceeded(deps: Pick<SsoDeps, 'logger'>, success: SsoSignInSuccess): Promise<void> {
  deps.logger.info(
    {
      organizationId: success.organizationId,
      userId: success.userId,
      role: success.role,
      demotedFrom: success.demotedFrom,
      created: success.created,
    },
    'single sign-on succeeded',
  );
}

/**
 * Records a single sign-on that failed (the one place to hang the audit log's `auth.login_failed`, in
 * OIDC_ORGANIZATION's log). Logs carry the check that failed, never a token, code or secret.
 */
export async function ssoSignInFailed(deps: Pick<SsoDeps, 'logger' | 'store' | 'clock'>, failure: SsoSignInFailure): Promise<void> {
  deps.logger.warn({ organizationId: failure.organizationId, check: failure.check, reason: failure.detail }, 'single sign-on failed');
  const { organizationId } = failure;
  if (organizationId === undefined || !(await deps.store.organizations.get(organizationId))) return;
  await recordAudit(deps, undefined, {
    organizationId,
    action: 'auth.login_failed',
    target: { type: 'user', id: null },
    outcome: 'denied',
    details: auditFields({ method: 'oidc', check: failure.check }),
    context: { via: 'rest', actor: { type: 'user', id: null, label: failure.email ?? null } },
  });
}

/**
 * Single sign-on (SPEC section 15): the provider vouches for a person, the platform admits them into an organization
 * with the role OIDC_ROLE_MAP gives (created at the first sign-in with OIDC_JIT, re-read at every sign-in, a lowered
 * role ending the user's other sessions and live streams), and hands the browser a one-time code that
 * `exchangeCode` turns into a seed-001 session.
 */
export class SsoSignIn {
  constructor(
    private readonly deps: SsoDeps,
    private readonly settings: OidcSettings,
    readonly relyingParty: OidcRelyingParty,
  ) {}

  /** The provider's authorization URL and the state to set in the browser's cookie. */
  begin(next: string): Promise<{ url: string; state: string }> {
    return this.relyingParty.begin(next);
  }

  /**
   * The callback: checks the provider's answer, admits the user and answers where to send the browser
   * (`next#sso=CODE`). SsoCheckFailed naming the check otherwise; no code is made then.
   */
  async complete(query: URLSearchParams, stateCookie: string | undefined): Promise<{ redirect: string }> {
    let identity: ProviderIdentity | undefined;
    try {
      identity = await this.relyingParty.complete(query, stateCookie);
      const { user, success } = await this.admit(identity);
      const code = randomBytes(32).toString('base64url');
      const now = this.deps.clock.now();
      await this.deps.store.ssoOneTime.put(
        oneTimeKey('code', code),
        JSON.stringify({ userId: user.id, organizationId: user.organizationId, sid: identity.sid, sub: identity.claims.sub }),
        now + signInCodeTtlMs,
        now,
      );
      await ssoSignInSucceeded(this.deps, success);
      return { redirect: `${identity.next}#sso=${code}` };
    } catch (error) {
      if (error instanceof SsoCheckFailed)
        await ssoSignInFailed(this.deps, {
          organizationId: this.settings.organization ?? stringClaim(identity?.claims, this.settings.organizationClaim),
          check: error.check,
          email: stringClaim(identity?.claims, 'email'),
          detail: error.message,
        });
      throw error;
    }
  }

  /** Exchanges a one-time code (once, within 60 s) for a seed-001 session. */
  async exchangeCode(code: unknown): Promise<TokenPair & { organizationId: string }> {
    if (typeof code !== 'string' || code.length < 20 || code.length > 200)
      throw validationFailed([{ field: 'code', message: 'must be the code of #sso= (20 to 200 characters)' }]);
    const payload = await this.deps.store.ssoOneTime.take(oneTimeKey('code', code), this.deps.clock.now());
    if (payload === undefined) throw unauthenticated('The sign-in code is unknown, expired or already used; sign in again.');
    const entry = JSON.parse(payload) as { userId: string; organizationId: string; sid?: string; sub: string };
    const user = await this.deps.store.users.get(entry.organizationId, entry.userId);
    if (!user) throw unauthenticated('The user no longer exists; sign in again.');
    return this.deps.sessions.startSsoSession(user, { sid: entry.sid, sub: entry.sub });
  }

  /** Back-channel logout: ends the sessions a valid `logout_token` names (backchannel-logout.ts). */
  logoutByToken(logoutToken: unknown): Promise<{ ended: number }> {
    return endSessionsByLogoutToken({ ...this.deps, relyingParty: this.relyingParty, settings: this.settings }, logoutToken);
  }

  /** Finds or creates the user, with the role from the claims; a lowered role ends the user's other sessions. */
  private async admit(identity: ProviderIdentity): Promise<{ user: User; success: SsoSignInSuccess }> {
    const { claims } = identity;
    const organizationId = this.settings.organization ?? stringClaim(claims, this.settings.organizationClaim);
    const organization = organizationId === undefined ? undefined : await this.deps.store.organizations.get(organizationId);
    if (!organization) throw new SsoCheckFailed('organization', 'the organization to join does not exist');
    const email = stringClaim(claims, 'email');
    if (email === undefined || !/^[^\s@]+@[^\s@]+$/.test(email) || email.length > 254)
      throw new SsoCheckFailed('e-mail', 'the ID token carries no usable e-mail claim');
    if (claims['email_verified'] === false) throw new SsoCheckFailed('e-mail', 'the provider has not verified the e-mail');
    const role = roleFromClaim(claims[this.settings.roleClaim], this.settings.roleMap);
    if (role === undefined) throw new SsoCheckFailed('role', `no value of the ${this.settings.roleClaim} claim is mapped to a role`);

    const users = this.deps.store.users;
    const bySubject = await users.getBySsoSubject(organization.id, claims.sub);
    const byEmail = bySubject ? undefined : await users.getWithPasswordHashByEmail(organization.id, email);
    if (byEmail && byEmail.ssoSubject !== null && byEmail.ssoSubject !== claims.sub)
      throw new SsoCheckFailed('user', 'this e-mail belongs to a user tied to another identity at the provider');
    let user: User | undefined = bySubject ?? byEmail;
    let created = false;
    if (!user) {
      if (!this.settings.jit) throw new SsoCheckFailed('user', 'no such user, and OIDC_JIT=false creates none');
      user = { id: randomUUID(), organizationId: organization.id, email, role, createdAt: this.deps.clock.now() };
      try {
        await users.create(user, noPassword);
        created = true;
      } catch (error) {
        // Two first sign-ins at once: the other one created the user.
        if (!(error instanceof DuplicateKeyError)) throw error;
        user = await users.getWithPasswordHashByEmail(organization.id, email);
        if (!user) throw error;
      }
    }
    if (!bySubject) await users.setSsoSubject(organization.id, user.id, claims.sub);
    let demotedFrom: Role | undefined;
    if (user.role !== role) {
      await users.updateRole(organization.id, user.id, role);
      if (isLowerRole(role, user.role)) {
        demotedFrom = user.role;
        // Before this sign-in's session starts, so only the others end (with their live streams, on every instance).
        await endSessionsOfUser(this.deps, user.id, 'role changed');
      }
      user = { ...user, role };
    }
    return { user, success: { organizationId: organization.id, userId: user.id, email: user.email, role, demotedFrom, created } };
  }
}

function stringClaim(claims: Record<string, unknown> | undefined, name: string | undefined): string | undefined {
  const value = name === undefined ? undefined : claims?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
