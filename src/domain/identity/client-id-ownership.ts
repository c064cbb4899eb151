import type { IdentityDeps } from './identity-service.js';
import { isMqttCredentialActive } from './identity-service.js';

/**
 * The client id rule of every broker path (issue 32 finding 4). MQTT lets a new connection with a known client id
 * take over the live connection and the persistent session of that id; across credentials that would let one
 * organization's gateway kick another's off and read its queued commands. So a client id belongs to the first
 * credential that used it, and only that credential may use it:
 *
 * - the embedded broker keeps the owners in memory (`ClientIdOwners`, src/mqtt/client-id-owners.ts), freeing an
 *   id when its clean session ends or its credential is revoked (it sees both);
 * - MQTT_AUTH=http keeps them in the store (`claimClientId`, below), so every instance the broker asks answers
 *   alike; the broker does not say when a session ends, so an id stays its credential's until that credential is
 *   revoked or deleted;
 * - MQTT_AUTH=mosquitto-dynsec cannot ask the platform at CONNECT: each credential's broker client is bound to one
 *   client id, its username (src/integration/dynsec-credentials.ts).
 */
export function mayUseClientId(owner: string | undefined, username: string): boolean {
  return owner === undefined || owner === username;
}

/**
 * True when `username` (already authenticated) may connect with `clientId`: the id is unused or its own, or its
 * owner's credential is revoked or gone (then it becomes `username`'s). Two instances racing for an unused id
 * agree: the store's insert decides. The platform's own broker user (`platformUsername`, not a credential of the
 * store) takes an id whoever holds it, and keeps it: its consumer sessions are subscribed to every organization's
 * uplinks, so no credential may hold one, even one that used the id before the platform first connected.
 */
export async function claimClientId(deps: IdentityDeps, clientId: string, username: string, platformUsername: string): Promise<boolean> {
  const ids = deps.store.mqttClientIds;
  const now = deps.clock.now();
  for (let attempt = 0; attempt < 3; attempt++) {
    const owner = await ids.getOwner(clientId);
    if (owner === undefined) {
      if (await ids.create(clientId, username, now)) return true;
      continue;
    }
    if (mayUseClientId(owner, username)) return true;
    const ownerGone = owner !== platformUsername && !(await isMqttCredentialActive(deps, owner));
    if (username !== platformUsername && !ownerGone) return false;
    if (await ids.updateOwner(clientId, owner, username, now)) return true;
  }
  // The owner changed under us three times: another credential is taking it at this moment.
  return false;
}
