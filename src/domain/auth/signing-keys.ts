import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { StoredSigningKey } from './auth-types.js';

/** The longest-lived token the platform signs (GraphQL refresh token, 12 h): a retired key verifies this long. */
export const longestTokenLifetimeS = 43_200;
// A minute of slack for clocks of different instances.
const retentionMs = (longestTokenLifetimeS + 60) * 1000;
// Unknown `kid`s make us re-read the store (another instance may have rotated), but at most this often, so a
// stream of forged tokens cannot turn into a stream of store queries.
const reloadIntervalMs = 5_000;

export interface PublicJwk extends JWK {
  kid: string;
  alg: 'EdDSA';
  use: 'sig';
}

interface LoadedKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
  publicJwk: PublicJwk;
  createdAt: number;
  retiredAt: number | null;
}

/**
 * The platform's Ed25519 signing keys, kept in the store. Exactly one key signs; retired keys keep verifying
 * until every token they signed has expired, then drop out of the JWKS.
 */
export class SigningKeys {
  private keys: LoadedKey[] = [];
  private lastLoadAt = 0;

  constructor(
    private readonly store: Store['signingKeys'],
    private readonly clock: Clock,
  ) {}

  /** Loads the keys, creating the first one on an empty store. */
  async start(): Promise<void> {
    await this.reload();
    if (!this.keys.some((key) => key.retiredAt === null)) await this.rotate();
  }

  /** Creates a new signing key and retires the others. Returns the new key id. */
  async rotate(): Promise<string> {
    const now = this.clock.now();
    const { privateKey } = generateKeyPairSync('ed25519');
    const privateJwk = privateKey.export({ format: 'jwk' }) as JWK;
    const { d: _secretPart, ...publicJwk } = privateJwk;
    const kid = await calculateJwkThumbprint(publicJwk);
    await this.store.create({
      kid,
      privateJwk: JSON.stringify(privateJwk),
      publicJwk: JSON.stringify(publicJwk),
      createdAt: now,
      retiredAt: null,
    });
    await this.store.retireAllExcept(kid, now);
    await this.reload();
    return kid;
  }

  /** Re-reads the keys from the store (picks up a rotation made by the CLI or another instance). */
  async reload(): Promise<void> {
    const stored = await this.store.list();
    this.keys = stored.map(loadKey);
    this.lastLoadAt = this.clock.now();
  }

  /** The key that signs new tokens. */
  signingKey(): { kid: string; privateKey: KeyObject } {
    const key = this.keys.find((k) => k.retiredAt === null) ?? this.keys[0];
    if (!key) throw new Error('signing keys are not loaded; call start() first');
    return { kid: key.kid, privateKey: key.privateKey };
  }

  /** The public key for a token's `kid`, or undefined when it is unknown or retired too long ago. */
  async verificationKey(kid: string): Promise<KeyObject | undefined> {
    let key = this.keys.find((k) => k.kid === kid);
    if (!key && this.clock.now() - this.lastLoadAt >= reloadIntervalMs) {
      await this.reload();
      key = this.keys.find((k) => k.kid === kid);
    }
    return key && this.isVerifying(key) ? key.publicKey : undefined;
  }

  /** The JSON Web Key Set: the signing key and the retired keys whose tokens may still be valid. */
  async jwks(): Promise<{ keys: PublicJwk[] }> {
    await this.reload();
    return { keys: this.keys.filter((key) => this.isVerifying(key)).map((key) => key.publicJwk) };
  }

  private isVerifying(key: LoadedKey): boolean {
    return key.retiredAt === null || this.clock.now() - key.retiredAt < retentionMs;
  }
}

function loadKey(stored: StoredSigningKey): LoadedKey {
  const privateJwk = JSON.parse(stored.privateJwk) as JWK;
  const publicJwk = JSON.parse(stored.publicJwk) as JWK;
  return {
    kid: stored.kid,
    privateKey: createPrivateKey({ key: privateJwk as JsonWebKey, format: 'jwk' }),
    publicKey: createPublicKey({ key: publicJwk as JsonWebKey, format: 'jwk' }),
    publicJwk: { ...publicJwk, kid: stored.kid, alg: 'EdDSA', use: 'sig' },
    createdAt: stored.createdAt,
    retiredAt: stored.retiredAt,
  };
}
