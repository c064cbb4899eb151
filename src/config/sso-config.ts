import { ConfigError } from './config-error.js';
import { parseChoice } from './parsers.js';

/** A role of SPEC section 2, as the role map names it (the domain's `Role`). */
export type SsoRole = 'Manager' | 'Installer' | 'Viewer';

/** One entry of OIDC_ROLE_MAP: a value of the role claim (`*`: anyone) and the role it gives. */
export interface RoleMapEntry {
  value: string;
  role: SsoRole;
}

/** The identity provider (SPEC section 15); present only when OIDC_ISSUER is set. */
export interface OidcSettings {
  /** The issuer; discovery at `{issuer}/.well-known/openid-configuration`. May be http:// (same host, development). */
  issuer: string;
  clientId: string;
  clientSecret: string | undefined;
  /** How the platform authenticates to the token endpoint. */
  clientAuth: 'client_secret_basic' | 'client_secret_post';
  /** The organization (id) every user of the provider joins; or undefined with `organizationClaim`. */
  organization: string | undefined;
  /** The ID token claim naming the user's organization (its id), when not one organization for all. */
  organizationClaim: string | undefined;
  /** The claim holding the user's groups or roles (a string or an array of strings). */
  roleClaim: string;
  roleMap: RoleMapEntry[];
  scopes: string;
  /** Create a user at the first sign-in; false: only users that already exist may sign in. */
  jit: boolean;
  /** The sign-in button's text: "Sign in with {name}". */
  name: string;
  /** Accept the provider's JWT access tokens as bearer tokens on REST and GraphQL. */
  acceptAccessTokens: boolean;
  /** The audience those access tokens must carry. */
  audience: string | undefined;
  /** Signature algorithms accepted on ID, logout and access tokens: asymmetric only (no `none`, no HS*). */
  algorithms: string[];
}

export interface SsoConfig {
  /** Where browsers reach the platform (no trailing slash); the redirect URI is `{publicUrl}/auth/oidc/callback`. */
  publicUrl: string | undefined;
  /** Password sign-in on; false: only a break-glass Manager may sign in with a password. */
  passwordLogin: boolean;
  oidc: OidcSettings | undefined;
}

const asymmetricAlgorithms = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'] as const;

/** The variables of single sign-on, in documentation order (README's configuration table has a row for each). */
export const ssoVariables = [
  'PUBLIC_URL',
  'AUTH_PASSWORD_LOGIN',
  'OIDC_ISSUER',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_CLIENT_AUTH',
  'OIDC_ORGANIZATION',
  'OIDC_ORGANIZATION_CLAIM',
  'OIDC_ROLE_CLAIM',
  'OIDC_ROLE_MAP',
  'OIDC_SCOPES',
  'OIDC_JIT',
  'OIDC_NAME',
  'OIDC_ACCEPT_ACCESS_TOKENS',
  'OIDC_AUDIENCE',
  'OIDC_ALGORITHMS',
] as const;

type Env = Readonly<Record<string, string | undefined>>;

/** Reads and checks the single sign-on settings; a ConfigError names the first bad or missing variable. */
export function loadSsoConfig(env: Env): SsoConfig {
  const read = (name: (typeof ssoVariables)[number]) => {
    const value = env[name];
    return value === undefined || value.trim() === '' ? undefined : value.trim();
  };
  const publicUrl = parsePublicUrl('PUBLIC_URL', read('PUBLIC_URL'));
  const passwordLogin = parseBoolean('AUTH_PASSWORD_LOGIN', read('AUTH_PASSWORD_LOGIN') ?? 'true');
  const issuerRaw = read('OIDC_ISSUER');
  if (issuerRaw === undefined) {
    for (const name of ssoVariables.filter((variable) => variable.startsWith('OIDC_') && variable !== 'OIDC_ISSUER'))
      if (read(name) !== undefined) throw new ConfigError(name, 'needs OIDC_ISSUER (single sign-on is off without it)');
    return { publicUrl, passwordLogin, oidc: undefined };
  }
  const issuer = parseHttpUrl('OIDC_ISSUER', issuerRaw);
  if (publicUrl === undefined)
    throw new ConfigError('PUBLIC_URL', 'OIDC_ISSUER needs it: the redirect URI is {PUBLIC_URL}/auth/oidc/callback');
  const clientId = read('OIDC_CLIENT_ID');
  if (clientId === undefined) throw new ConfigError('OIDC_CLIENT_ID', 'OIDC_ISSUER needs the client id registered at the provider');
  const organization = read('OIDC_ORGANIZATION');
  const organizationClaim = read('OIDC_ORGANIZATION_CLAIM');
  if ((organization === undefined) === (organizationClaim === undefined))
    throw new ConfigError('OIDC_ORGANIZATION', 'set exactly one of OIDC_ORGANIZATION (an organization id) and OIDC_ORGANIZATION_CLAIM');
  if (organization !== undefined && !/^[a-z0-9-]{1,40}$/.test(organization))
    throw new ConfigError('OIDC_ORGANIZATION', `"${organization}" is not an organization id (lowercase letters, digits and -)`);
  const roleMapRaw = read('OIDC_ROLE_MAP');
  if (roleMapRaw === undefined)
    throw new ConfigError('OIDC_ROLE_MAP', 'OIDC_ISSUER needs it: value:ROLE,... (e.g. thingdesk-admins:MANAGER,*:VIEWER)');
  const acceptAccessTokens = parseBoolean('OIDC_ACCEPT_ACCESS_TOKENS', read('OIDC_ACCEPT_ACCESS_TOKENS') ?? 'false');
  const audience = read('OIDC_AUDIENCE');
  if (acceptAccessTokens && audience === undefined)
    throw new ConfigError(
      'OIDC_AUDIENCE',
      'OIDC_ACCEPT_ACCESS_TOKENS=true needs the audience the provider puts in access tokens meant for the platform',
    );
  if (acceptAccessTokens && organization === undefined)
    throw new ConfigError(
      'OIDC_ORGANIZATION',
      'OIDC_ACCEPT_ACCESS_TOKENS=true needs it: a provider access token acts in that organization',
    );
  return {
    publicUrl,
    passwordLogin,
    oidc: {
      issuer,
      clientId,
      clientSecret: read('OIDC_CLIENT_SECRET'),
      clientAuth: parseChoice('OIDC_CLIENT_AUTH', read('OIDC_CLIENT_AUTH') ?? 'client_secret_basic', [
        'client_secret_basic',
        'client_secret_post',
      ] as const),
      organization,
      organizationClaim,
      roleClaim: read('OIDC_ROLE_CLAIM') ?? 'groups',
      roleMap: parseRoleMap('OIDC_ROLE_MAP', roleMapRaw),
      scopes: parseScopes('OIDC_SCOPES', read('OIDC_SCOPES') ?? 'openid email profile'),
      jit: parseBoolean('OIDC_JIT', read('OIDC_JIT') ?? 'true'),
      name: (read('OIDC_NAME') ?? 'single sign-on').slice(0, 60),
      acceptAccessTokens,
      audience,
      algorithms: parseAlgorithms('OIDC_ALGORITHMS', read('OIDC_ALGORITHMS') ?? 'RS256,PS256,ES256,EdDSA'),
    },
  };
}

/** `value:ROLE,...`; the value may itself hold `:` (the role is after the last one); ROLE in any letter case. */
export function parseRoleMap(name: string, raw: string): RoleMapEntry[] {
  const entries: RoleMapEntry[] = [];
  for (const part of raw.split(',').map((entry) => entry.trim())) {
    if (part === '') continue;
    const at = part.lastIndexOf(':');
    const value = at > 0 ? part.slice(0, at).trim() : '';
    const roleName =
      at > 0
        ? part
            .slice(at + 1)
            .trim()
            .toLowerCase()
        : '';
    const role = (['Manager', 'Installer', 'Viewer'] as const).find((candidate) => candidate.toLowerCase() === roleName);
    if (value === '' || role === undefined)
      throw new ConfigError(name, `"${part}" is not value:ROLE with ROLE one of MANAGER, INSTALLER, VIEWER`);
    entries.push({ value, role });
  }
  if (entries.length === 0) throw new ConfigError(name, 'names no role');
  return entries;
}

function parseBoolean(name: string, raw: string): boolean {
  return parseChoice(name, raw.toLowerCase(), ['true', 'false'] as const) === 'true';
}

function parseHttpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(name, `"${raw}" is not a URL`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new ConfigError(name, 'must be an http:// or https:// URL');
  if (url.search !== '' || url.hash !== '') throw new ConfigError(name, 'must have no query or fragment');
  return raw.replace(/\/+$/, '');
}

function parsePublicUrl(name: string, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const value = parseHttpUrl(name, raw);
  if (new URL(value).pathname !== '/')
    throw new ConfigError(name, "must be the platform's origin, without a path (e.g. https://iot.example.com)");
  return new URL(value).origin;
}

function parseScopes(name: string, raw: string): string {
  const scopes = raw.split(/\s+/).filter((scope) => scope !== '');
  if (!scopes.includes('openid')) throw new ConfigError(name, 'must include openid');
  if (scopes.some((scope) => !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope)))
    throw new ConfigError(name, 'holds a character a scope cannot have');
  return scopes.join(' ');
}

function parseAlgorithms(name: string, raw: string): string[] {
  const algorithms = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const algorithm of algorithms)
    if (!(asymmetricAlgorithms as readonly string[]).includes(algorithm))
      throw new ConfigError(name, `"${algorithm}" is not one of ${asymmetricAlgorithms.join(', ')} (no none, no HS*)`);
  if (algorithms.length === 0) throw new ConfigError(name, 'names no algorithm');
  return algorithms;
}
