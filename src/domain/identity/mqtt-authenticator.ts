import { createHash } from 'node:crypto';
import { authenticateMqttCredential, type IdentityDeps } from './identity-service.js';
import { TokenCache } from './token-cache.js';
import type { MqttCredential } from './types.js';

/**
 * MQTT CONNECT authentication with a short memory of what was verified. Each check is an argon2id verify (~12 ms
 * of CPU): a fleet reconnecting after a broker restart, or a client reconnecting in a loop, would spend a core on
 * them. A username and password verified within `ttlMs` are accepted again without one; only the right password
 * can hit the memory (it is keyed by a hash of the password), so it tells nothing to a guesser. A revocation made
 * here forgets the username at once; one made elsewhere is honoured within `ttlMs`, the same bound as the broker's
 * recheck of live connections (MQTT_CREDENTIAL_RECHECK_S).
 */
export class MqttAuthenticator {
  private readonly verified = new TokenCache<MqttCredential>(10_000);

  constructor(
    private readonly deps: IdentityDeps,
    private readonly ttlMs: number,
  ) {}

  async authenticate(username: string, password: string): Promise<MqttCredential | undefined> {
    const key = `${username}\u0000${createHash('sha256').update(password).digest('base64')}`;
    const now = this.deps.clock.now();
    const known = this.verified.get(key, now);
    if (known) return known;
    const credential = await authenticateMqttCredential(this.deps, username, password);
    if (credential) this.verified.set(key, credential, now + this.ttlMs);
    return credential;
  }

  forget(username: string): void {
    this.verified.deleteWhere((credential) => credential.username === username);
  }
}
