import { createPrivateKey, createPublicKey, generateKeyPairSync, type JsonWebKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, type JWK } from 'jose';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { isSealedSecret, sealSecret, unsealSecret } from '../identity/secrets.js';
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
 * The store's signing keys were sealed under another key than the one given: a wrong SIGNING_KEY_SEALING_KEY, a
 * lost key file, or a store copied without its key. Nothing can be signed; the composition root names the setting.
 */
export class SealedUnderAnotherKeyError extends Error {
  constructor(readonly kid: string) {
    super(`signing key ${kid} was sealed under another key`);
    this.name = 'SealedUnderAnotherKeyError';
  }
}

/**
 * The platform's Ed25519 signing keys, kept in the store. Exactly one key signs; retired keys keep verifying
 * until every token they signed has expired, then drop out of the JWKS. The private part of each key is stored
 * sealed under `sealingKey` (AES-256-GCM, `sealSecret`), which is never in the store: a copy of the store or of a
 * backup cannot mint tokens. Keys stored in plain text by an older version load as they are and are sealed by
 * `start()`, keeping their `kid`, so tokens they signed verify as before.
 */
export class SigningKeys {
  private keys: LoadedKey[] = [];
  private lastLoadAt = 0;

  constructor(
    private readonly store: Store['signingKeys'],
    private readonly clock: Clock,
    private readonly sealingKey: string,
  ) {}

  /** Seals another secret the platform must read again (a webhook's signing secret) under the same key. */
  sealOther(secret: string): string {
    return sealSecret(this.sealingKey, secret);
  }

  /** A secret sealed by `sealOther`. */
  unsealOther(sealed: string): string {
    return unsealSecret(this.sealingKey, sealed);
  }

  /**
   * Loads the keys, seals any stored in plain text, and creates the first key on an empty store. Throws
   * SealedUnderAnotherKeyError, before changing anything, when a stored key does not open with `sealingKey`.
   */
  async start(): Promise<void> {
    const stored = await this.reload();
    await this.sealPlainKeys(stored);
    if (!this.keys.some((key) => key.retiredAt === null)) await this.rotate();
  }

  /**
   * The sealing migration (issue 32): every key an older version stored in plain text is sealed in place. The
   * update holds only while the row is still the plain text read, so instances starting together on one store
   * each seal a key at most once, and a key sealed by another is left as it is.
   */
  private async sealPlainKeys(stored: readonly StoredSigningKey[]): Promise<void> {
    for (const key of stored) {
      if (isSealedSecret(key.privateJwk)) continue;
      await this.store.sealPrivateJwk(key.kid, key.privateJwk, sealSecret(this.sealingKey, key.privateJwk));
    }
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
      privateJwk: sealSecret(this.sealingKey, JSON.stringify(privateJwk)),
      publicJwk: JSON.stringify(publicJwk),
      createdAt: now,
      retiredAt: null,
    });
    await this.store.retireAllExcept(kid, now);
    await this.reload();
    return kid;
  }

  /**
   * Replaces every key by a new one, without reading them: for a store whose sealing key is lost, while the
   * platform is stopped (it cannot start then; a running instance keeps the keys it loaded until it re-reads the
   * store). Every token signed before stops verifying. Returns the new key id.
   */
  async reset(): Promise<string> {
    await this.store.deleteAll();
    return this.rotate();
  }

  /**
   * Re-reads the keys from the store (picks up a rotation made by the CLI or another instance); returns them as
   * stored. Throws SealedUnderAnotherKeyError when one does not open with the sealing key.
   */
  async reload(): Promise<StoredSigningKey[]> {
    const stored = await this.store.list();
    this.keys = stored.map((key) => loadKey(key, this.sealingKey));
    this.lastLoadAt = this.clock.now();
    return stored;
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

function loadKey(stored: StoredSigningKey, sealingKey: string): LoadedKey {
  const privateJwk = JSON.parse(privateJwkText(stored, sealingKey)) as JWK;
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

/** The private JWK's JSON text: unsealed, or as stored by a version that did not seal (until `start()` seals it). */
function privateJwkText(stored: StoredSigningKey, sealingKey: string): string {
  if (!isSealedSecret(stored.privateJwk)) return stored.privateJwk;
  try {
    return unsealSecret(sealingKey, stored.privateJwk);
  } catch {
    throw new SealedUnderAnotherKeyError(stored.kid);
  }
}
