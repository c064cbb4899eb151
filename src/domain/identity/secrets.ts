import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hash, verify } from '@node-rs/argon2';

/**
 * Password and secret hashing. Two schemes on purpose:
 * - people's passwords (users, MQTT credentials, which operators may choose by hand) get argon2id, slow by design;
 * - API client secrets are 256-bit random strings, so brute force is hopeless and a fast salted HMAC-SHA256 is
 *   enough; clients that fetch a token before every call then cost microseconds, not 12 ms of argon2 each.
 */

// OWASP's recommended minimum for argon2id (19 MiB, 2 iterations, 1 lane): ~12 ms per hash on the target machines.
// algorithm 2 is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const argon2Options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export async function hashPassword(password: string): Promise<string> {
  return hash(password, argon2Options);
}

export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  try {
    return await verify(storedHash, password);
  } catch {
    return false;
  }
}

/** A new random secret: 32 bytes as base64url (43 characters). */
export function generateSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** A readable random identifier suffix, e.g. for generated client ids and usernames. */
export function generateIdSuffix(bytes = 6): string {
  return randomBytes(bytes).toString('hex');
}

const secretScheme = 'hmac-sha256';

export function hashSecret(secret: string): string {
  const salt = randomBytes(16);
  return `${secretScheme}$${salt.toString('base64url')}$${digest(salt, secret).toString('base64url')}`;
}

export function verifySecret(storedHash: string, secret: string): boolean {
  const [scheme, saltText, digestText] = storedHash.split('$');
  if (scheme !== secretScheme || saltText === undefined || digestText === undefined) return false;
  const expected = Buffer.from(digestText, 'base64url');
  const actual = digest(Buffer.from(saltText, 'base64url'), secret);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

function digest(salt: Buffer, secret: string): Buffer {
  return createHmac('sha256', salt).update(secret, 'utf8').digest();
}

const sealedPrefix = 'aes-256-gcm';

/**
 * Seals a secret the platform must be able to read again (an MQTT password that Mosquitto's dynamic security needs
 * in plain text to provision, docs/mqtt.md): AES-256-GCM under a key that lives in the environment, never in the
 * store, so a copy of the store alone reveals nothing. `key`: MQTT_AUTH_SEALING_KEY as configured.
 */
export function sealSecret(key: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [sealedPrefix, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('$');
}

/** The secret sealed by `sealSecret` under the same key; throws when the key differs or the value was altered. */
export function unsealSecret(key: string, sealed: string): string {
  const [prefix, iv, tag, data] = sealed.split('$');
  if (prefix !== sealedPrefix || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
  const decipher = createDecipheriv('aes-256-gcm', sealingKey(key), Buffer.from(iv, 'base64url'));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
}

// Whatever the key's encoding, a SHA-256 of it is the 32-byte AES key (its strength is checked where it is configured).
function sealingKey(key: string): Buffer {
  return createHash('sha256').update(key).digest();
}

/** How MQTT passwords are sealed with MQTT_AUTH_SEALING_KEY, or undefined without one (they are then only hashed). */
export function mqttPasswordSealer(key: string | undefined): ((password: string) => string) | undefined {
  return key === undefined ? undefined : (password) => sealSecret(key, password);
}
