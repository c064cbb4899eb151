/** A stored Ed25519 key pair as JWK JSON texts. */
export interface StoredSigningKey {
  kid: string;
  /** Sealed (`sealSecret`, signing-keys.ts); plain JSON only in a store an older version wrote, until the next start. */
  privateJwk: string;
  publicJwk: string;
  createdAt: number;
  retiredAt: number | null;
}
