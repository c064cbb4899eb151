import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';
import { sameSecret } from '../auth/constant-time.js';
import { nodeArgon2 } from './password-hashing.js';

/**
 * Password and secret hashing. Two schemes on purpose:
 * - people's passwords (users, MQTT credentials, which operators may choose by hand) get argon2id, slow by design;
 * - API client secrets are 256-bit random strings, so brute force is hopeless and a fast salted HMAC-SHA256 is
 *   enough; clients that fetch a token before every call then cost microseconds, not 12 ms of argon2 each.
 */

/** An argon2id hash, outside the process's cap on argon2 work (password-hashing.ts): one-off work such as the CLI's. */
export async function hashPassword(password: string): Promise<string> {
  return nodeArgon2.hash(password);
}

/** An argon2 verify outside the cap (password-hashing.ts); false for a malformed hash. */
export async function verifyPassword(storedHash: string, password: string): Promise<boolean> {
  return nodeArgon2.verify(storedHash, password);
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
  return sameSecret(digest(Buffer.from(saltText, 'base64url'), secret), Buffer.from(digestText, 'base64url'));
}

function digest(salt: Buffer, secret: string): Buffer {
  return createHmac('sha256', salt).update(secret, 'utf8').digest();
}

const sealedPrefix = 'aes-256-gcm';

/**
 * Seals a secret the platform must be able to read again (an MQTT password that Mosquitto's dynamic security needs
 * in plain text to provision, docs/mqtt.md; the private part of a token-signing key): AES-256-GCM under a key that
 * lives outside the store, so a copy of the store alone reveals nothing. `key`: MQTT_AUTH_SEALING_KEY or
 * SIGNING_KEY_SEALING_KEY (or its key file) as configured.
 */
export function sealSecret(key: string, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey(key), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return [sealedPrefix, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('$');
}

/** Whether `text` was written by `sealSecret` (a stored value from before sealing is not). */
export function isSealedSecret(text: string): boolean {
  return text.startsWith(`${sealedPrefix}$`);
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
