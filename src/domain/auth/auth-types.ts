/** A stored Ed25519 key pair as JWK JSON texts. */
export interface StoredSigningKey {
  kid: string;
  privateJwk: string;
  publicJwk: string;
  createdAt: number;
  retiredAt: number | null;
}
