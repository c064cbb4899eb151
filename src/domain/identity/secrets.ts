import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
