import { createHmac, randomBytes } from 'node:crypto';

/** Standard Webhooks 1.0 signatures (SPEC section 11, Wire format), with node:crypto. */

/** A new endpoint secret: `whsec_` + base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** `v1,<base64 HMAC-SHA256 of "id.timestamp.body">` under each secret, space-separated. */
export function webhookSignature(secrets: readonly string[], id: string, timestampS: number, body: string): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(`${id}.${timestampS}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
