import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a secret someone sent equals the one expected (a shared bearer token such as METRICS_TOKEN or
 * MQTT_AUTH_HTTP_SECRET, a password kept in configuration, a digest), in time that depends on neither where they
 * differ nor how long either is: both sides are hashed with SHA-256 to 32 bytes first, then compared with
 * `timingSafeEqual`. Comparing the raw bytes would need equal lengths, and refusing early on a length mismatch tells
 * an attacker the secret's length. The one way to compare secrets in src/.
 */
export function sameSecret(sent: string | Buffer, expected: string | Buffer): boolean {
  return timingSafeEqual(sha256(sent), sha256(expected));
}

function sha256(value: string | Buffer): Buffer {
  return createHash('sha256').update(value).digest();
}
