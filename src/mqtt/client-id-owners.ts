import { mayUseClientId } from '../domain/identity/client-id-ownership.js';

/**
 * Which MQTT credential a client id (and the session stored under it) belongs to. MQTT lets a new connection
 * with a known client id take over the live connection and the persistent session of that id; across
 * credentials that would let one organization's gateway read another's queued commands or kick it off. So the
 * first credential to use a client id owns it until its session ends, and only that credential may use it (the
 * rule of every broker path: `mayUseClientId`, src/domain/identity/client-id-ownership.ts).
 */
export class ClientIdOwners {
  private readonly owners = new Map<string, string>();

  /** True when `username` may use `clientId` (unused, or already its own); it then owns it. */
  claim(clientId: string, username: string): boolean {
    if (!mayUseClientId(this.owners.get(clientId), username)) return false;
    this.owners.set(clientId, username);
    return true;
  }

  /** The session of `clientId` ended (a clean session closed): anyone may use the id again. */
  release(clientId: string, username: string): void {
    if (this.owners.get(clientId) === username) this.owners.delete(clientId);
  }

  /** A credential was revoked: its client ids are free again (a gateway rotating its credential keeps its id). */
  releaseAll(username: string): string[] {
    const released: string[] = [];
    for (const [clientId, owner] of this.owners) {
      if (owner === username) {
        this.owners.delete(clientId);
        released.push(clientId);
      }
    }
    return released;
  }
}
