import { isIP } from 'node:net';
import { ConfigError } from './config-error.js';
import { feedTemplateReachesPlatformTopics } from '../mqtt/topics.js';

/** Parsers for environment values: each returns the typed value or throws a ConfigError naming the variable. */

export function parseInteger(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw.trim());
  if (!/^-?\d+$/.test(raw.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
    throw new ConfigError(name, `"${raw}" is not an integer between ${min} and ${max}`);
  }
  return value;
}

export function parseNumber(name: string, raw: string, min: number, max: number): number {
  const value = Number(raw.trim());
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || value > max) {
    throw new ConfigError(name, `"${raw}" is not a number between ${min} and ${max}`);
  }
  return value;
}

export function parsePort(name: string, raw: string): number {
  return parseInteger(name, raw, 0, 65535);
}

export function parseChoice<T extends string>(name: string, raw: string, choices: readonly T[]): T {
  const value = raw.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(value)) {
    throw new ConfigError(name, `"${raw}" is not one of ${choices.join(', ')}`);
  }
  return value as T;
}

/** A path prefix such as `/api/v1`: starts with `/`, no trailing slash, no spaces, query or fragment. */
export function parsePathPrefix(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) {
    throw new ConfigError(name, `"${raw}" is not a path like /api/v1 (segments of letters, digits, . _ ~ -)`);
  }
  return value;
}

/**
 * A comma-separated list of web origins (`scheme://host[:port]`, no path), or `*` alone for any origin. Empty means
 * none (same-origin only). Each origin is kept as the browser sends it in `Origin` (lower-case, default port
 * dropped), so a listed origin matches exactly.
 */
export function parseOriginList(name: string, raw: string): string[] | '*' {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.includes('*')) {
    if (entries.length > 1) throw new ConfigError(name, '"*" allows every origin and cannot be combined with a list');
    return '*';
  }
  return entries.map((entry) => {
    let url: URL | undefined;
    try {
      url = new URL(entry);
    } catch {
      // Reported below with the rule.
    }
    const originOnly =
      url && /^https?:$/.test(url.protocol) && url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
    if (!url || !originOnly || !/^https?:\/\/[^/]+\/?$/i.test(entry)) {
      throw new ConfigError(
        name,
        `"${entry}" is not an origin such as https://dashboard.example.com or http://localhost:3000 (scheme, host and port only)`,
      );
    }
    return url.origin;
  });
}

export function parseTimeZone(name: string, raw: string): string {
  const value = raw.trim();
  try {
    // Intl throws a RangeError for zones the runtime's ICU data does not know.
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    throw new ConfigError(name, `"${raw}" is not an IANA time zone such as UTC or Europe/Helsinki`);
  }
}

export function parseDatabaseUrl(name: string, raw: string): string {
  const value = raw.trim();
  if (value.startsWith('file:')) {
    if (value.length === 'file:'.length) throw new ConfigError(name, 'a file: URL needs a path, e.g. file:./data/thingdesk.db');
    return value;
  }
  if (/^postgres(ql)?:\/\//.test(value)) {
    try {
      new URL(value);
      return value;
    } catch {
      throw new ConfigError(name, `"${redactUrl(value)}" is not a valid postgres:// URL`);
    }
  }
  throw new ConfigError(name, `"${redactUrl(value)}" must start with file: (SQLite) or postgres:// (PostgreSQL)`);
}

export function parseMqttUrl(name: string, raw: string): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${redactUrl(value)}" is not a URL like mqtt://host:1883`);
  }
  if (!['mqtt:', 'mqtts:', 'tcp:', 'ssl:', 'ws:', 'wss:'].includes(url.protocol)) {
    throw new ConfigError(name, `"${redactUrl(value)}" must use mqtt://, mqtts://, ws:// or wss://`);
  }
  return value;
}

/** The placeholders a data-feed topic template may use; each becomes one topic segment. */
export const integrationTopicPlaceholders = ['org', 'group', 'tuid', 'tsmId'] as const;

export function parseTopicTemplate(name: string, raw: string): string {
  const value = raw.trim();
  if (value === '' || /[+#\s]/.test(value) || value.startsWith('/') || value.endsWith('/') || value.includes('//')) {
    throw new ConfigError(name, `"${raw}" must be a topic without wildcards, spaces or empty segments`);
  }
  for (const segment of value.split('/')) {
    if (segment.includes('{') && !/^\{[^{}]*\}$/.test(segment)) {
      // A placeholder must be a whole segment, so that a subscriber can match it with `+`.
      throw new ConfigError(name, `placeholder must be a whole topic segment, not part of "${segment}"`);
    }
  }
  for (const match of value.matchAll(/\{([^}]*)\}/g)) {
    const placeholder = match[1] ?? '';
    if (!(integrationTopicPlaceholders as readonly string[]).includes(placeholder)) {
      throw new ConfigError(
        name,
        `unknown placeholder {${placeholder}}; use ${integrationTopicPlaceholders.map((p) => `{${p}}`).join(', ')}`,
      );
    }
  }
  if (!value.includes('{org}')) {
    // Without the organization in the topic, broker access rules could not keep one tenant's feed from another.
    throw new ConfigError(name, `"${raw}" must contain {org}`);
  }
  const reaches = feedTemplateReachesPlatformTopics(value);
  // A feed on the platform's own topics would hand an organization another's uplinks, commands or relayed batches.
  if (reaches) throw new ConfigError(name, `"${raw}" is refused: ${reaches} (docs/mqtt.md, Topics)`);
  return value;
}

/** Hides the password of a URL so that error lines and logs never carry it. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

// The address ranges proxy-addr (fastify's trust check) knows by name.
const namedProxyRanges = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: the reverse proxies whose X-Forwarded-For names the client. A comma-separated list of addresses,
 * CIDR ranges or the names loopback, linklocal and uniquelocal; empty trusts none. Never `true`: trusting any
 * sender would let every client name its own address and step around the per-address limit.
 */
export function parseTrustedProxies(name: string, raw: string): string[] {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    if (namedProxyRanges.includes(entry)) continue;
    const [address = '', prefix, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= bits);
    if (family === 0 || !prefixOk || extra !== undefined) {
      throw new ConfigError(name, `"${entry}" is not an address, a CIDR range (10.0.0.0/8) or one of ${namedProxyRanges.join(', ')}`);
    }
  }
  return entries;
}

/**
 * A map tile server's URL template for the studio (`https://tile.example.org/{z}/{x}/{y}.png`): http(s), with the
 * three placeholders. Its origin is added to the studio's Content-Security-Policy, so nothing else is reachable.
 */
/**
 * MAP_LINK_URL: where the studio links a thing's location, e.g. https://www.openstreetmap.org/?mlat={lat}&mlon={lon}.
 * http(s) only (no `javascript:` link on a page), both placeholders, no credentials in a link every user sees.
 */
export function parseMapLinkTemplate(name: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.replace(/\{(lat|lon)\}/g, '0'));
  } catch {
    // Reported below with the rule.
  }
  const placeholders = ['{lat}', '{lon}'].every((placeholder) => raw.includes(placeholder));
  if (!url || !/^https?:$/.test(url.protocol) || !placeholders || url.username || url.password) {
    throw new ConfigError(
      name,
      `"${raw}" is not a map link template such as https://www.openstreetmap.org/?mlat={lat}&mlon={lon} (http or https, with {lat} and {lon})`,
    );
  }
  return raw;
}

export function parseTileUrlTemplate(name: string, raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw.replace(/[{}]/g, ''));
  } catch {
    // Reported below with the rule.
  }
  const placeholders = ['{z}', '{x}', '{y}'].every((placeholder) => raw.includes(placeholder));
  if (!url || !/^https?:$/.test(url.protocol) || !placeholders || url.username || url.password) {
    throw new ConfigError(
      name,
      `"${raw}" is not a tile URL template such as https://tile.example.org/{z}/{x}/{y}.png (http or https, with {z}, {x} and {y})`,
    );
  }
  return raw;
}

/** SMTP_URL: smtp:// (STARTTLS when offered) or smtps:// (TLS), with a host, and user and password when the server wants them. */
export function parseSmtpUrl(name: string, raw: string): string {
  const value = raw.trim();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `"${redactUrl(value)}" is not a URL like smtps://user:password@smtp.example.com:465`);
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:')
    throw new ConfigError(name, `"${redactUrl(value)}" must use smtp:// or smtps://`);
  if (url.hostname === '') throw new ConfigError(name, `"${redactUrl(value)}" names no host`);
  return value;
}

/** SMTP_FROM: one address, bare (alerts@example.com) or with a name (thingdesk <alerts@example.com>). */
export function parseMailFrom(name: string, raw: string): string {
  const value = raw.trim();
  if (!/^([^<>@]*<[^\s@<>]+@[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+)$/.test(value))
    throw new ConfigError(name, `"${value}" is not an e-mail address like alerts@example.com or "thingdesk <alerts@example.com>"`);
  return value;
}
