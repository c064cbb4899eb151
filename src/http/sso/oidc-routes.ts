import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { SsoConfig } from '../../config/sso-config.js';
import type { TokenPair } from '../../domain/auth/user-sessions.js';
import { notFound } from '../../domain/errors.js';
import { safeNext } from '../../domain/sso/oidc-relying-party.js';
import { SsoCheckFailed } from '../../domain/sso/sso-check.js';
import type { SsoSignIn } from '../../domain/sso/sso-sign-in.js';
import type { RateLimiter } from '../rate-limiter.js';

/** The cookie that ties a callback to the browser that started the sign-in (its value is the state). */
const stateCookie = 'thingdesk_oidc_state';

export interface OidcRouteDeps {
  sso: SsoConfig;
  /** Undefined when OIDC_ISSUER is unset: the routes answer 404 but `/auth/oidc/config`. */
  signIn: SsoSignIn | undefined;
  perAddress: RateLimiter;
}

/**
 * Single sign-on's routes (SPEC section 15), at the root of PUBLIC_URL (not under REST_BASE_PATH): the studio's
 * sign-in button (`/auth/oidc/config`), the redirect to the provider and its callback, the one-time code's exchange
 * for a seed-001 session, the provider's back-channel logout, and the studio's sign-out at the provider.
 */
export function registerOidcRoutes(http: FastifyInstance, deps: OidcRouteDeps): void {
  http.register(async (scope) => {
    scope.addHook('onRequest', async (request) => deps.perAddress.hit(request.ip));
    // Back-channel logout posts a form (OpenID Connect Back-Channel Logout 1.0, section 2.5); only in this scope.
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 65_536 }, (_request, body, done) =>
      done(null, new URLSearchParams(String(body))),
    );

    scope.get('/auth/oidc/config', async (_request, reply) => {
      reply.header('cache-control', 'no-store');
      const oidc = deps.sso.oidc;
      return { name: oidc?.name ?? null, loginUrl: oidc ? '/auth/oidc/login' : null, passwordLogin: deps.sso.passwordLogin };
    });

    scope.get('/auth/oidc/login', async (request, reply) => {
      const signIn = required(deps.signIn);
      const next = safeNext((request.query as { next?: unknown }).next);
      const started = await signIn.begin(next).catch((error: unknown) => {
        if (error instanceof SsoCheckFailed) return error;
        throw error;
      });
      if (started instanceof SsoCheckFailed) return failurePage(reply, started, 502);
      reply.header('set-cookie', cookie(deps.sso.publicUrl!, started.state, 600));
      reply.header('cache-control', 'no-store');
      return reply.redirect(started.url, 302);
    });

    scope.get('/auth/oidc/callback', async (request, reply) => {
      const signIn = required(deps.signIn);
      const query = new URLSearchParams(request.url.split('?')[1] ?? '');
      reply.header('set-cookie', cookie(deps.sso.publicUrl!, '', 0));
      reply.header('cache-control', 'no-store');
      try {
        const { redirect } = await signIn.complete(query, cookieOf(request, stateCookie));
        return reply.redirect(redirect, 303);
      } catch (error) {
        if (error instanceof SsoCheckFailed) return failurePage(reply, error, error.check === 'provider' ? 502 : 400);
        throw error;
      }
    });

    scope.post('/auth/oidc/session', async (request, reply) => {
      const signIn = required(deps.signIn);
      reply.header('cache-control', 'no-store');
      const tokens: TokenPair & { organizationId: string } = await signIn.exchangeCode(
        (request.body as { code?: unknown } | undefined)?.code,
      );
      return { data: tokens };
    });

    scope.post('/auth/oidc/backchannel-logout', async (request, reply) => {
      const signIn = required(deps.signIn);
      reply.header('cache-control', 'no-store');
      const body = request.body instanceof URLSearchParams ? request.body : new URLSearchParams();
      try {
        await signIn.logoutByToken(body.get('logout_token') ?? undefined);
        return reply.code(200).send({ ok: true });
      } catch (error) {
        if (!(error instanceof SsoCheckFailed)) throw error;
        request.log.warn({ check: error.check, reason: error.message }, 'back-channel logout refused');
        return reply.code(400).send({ error: 'invalid_request', error_description: `the logout token failed the ${error.check} check` });
      }
    });

    // The studio's sign-out, after GraphQL logout ended the platform's session: the provider's too, where it offers it.
    scope.get('/auth/oidc/logout', async (_request, reply) => {
      const signIn = required(deps.signIn);
      const back = `${deps.sso.publicUrl}/studio/sign-in`;
      const url = await signIn.relyingParty.endSessionUrl(undefined, back).catch(() => undefined);
      reply.header('cache-control', 'no-store');
      return reply.redirect(url ?? '/studio/sign-in', 302);
    });
  });
}

function required(signIn: SsoSignIn | undefined): SsoSignIn {
  if (!signIn) throw notFound('Single sign-on is not configured (OIDC_ISSUER).');
  return signIn;
}

/** The state cookie: HttpOnly, SameSite=Lax (the provider's redirect back is a top-level GET), Secure on https. */
function cookie(publicUrl: string, value: string, maxAgeS: number): string {
  const secure = publicUrl.startsWith('https:') ? '; Secure' : '';
  return `${stateCookie}=${value}; Path=/auth/oidc; Max-Age=${maxAgeS}; HttpOnly; SameSite=Lax${secure}`;
}

function cookieOf(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim() || undefined;
  }
  return undefined;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The page of a failed sign-in: names the check that failed, carries no code or token, offers a new attempt. */
function failurePage(reply: FastifyReply, failure: SsoCheckFailed, status: number): FastifyReply {
  const check = escapeHtml(failure.check);
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
    .header('x-content-type-options', 'nosniff')
    .send(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign-in failed</title></head>` +
        `<body><main><h1>Sign-in failed</h1><p>The <strong id="failed-check" data-check="${check}">${check}</strong> check failed.</p>` +
        `<p><a href="/studio/sign-in">Back to sign-in</a></p></main></body></html>`,
    );
}
