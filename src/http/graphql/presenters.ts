import { toUnixSeconds } from '../../domain/clock.js';
import type { GroupListing } from '../../domain/groups/group-types.js';
import { shownGroupId } from '../../domain/groups/unassigned-group.js';
import type { InstallationChange } from '../../domain/installations/installation-service.js';
import type { InstallationEntry } from '../../domain/installations/installation-types.js';
import type { ApiClient, MqttCredential, Role } from '../../domain/identity/types.js';
import type { Thing } from '../../domain/things/thing-types.js';
import { viewThing } from '../../domain/things/thing-view.js';

/** Each resource as the GraphQL schema shows it (SPEC section 4), one presenter per type: camelCase, Unix seconds. */

/** GraphQL's Role enum values are upper case; the domain's roles are capitalized words. The one map of the two. */
export const roleEnum: Readonly<Record<string, Role>> = { MANAGER: 'Manager', INSTALLER: 'Installer', VIEWER: 'Viewer' };

/** GraphQL's MqttCredentialKind enum values to the domain's kinds. */
export const mqttCredentialKindEnum = { GATEWAY: 'gateway', INTEGRATION: 'integration' } as const;

/** The Thing type: the summary fields in camelCase; labels as a list of {key, value}, by key. */
export function presentThing(thing: Thing) {
  const view = viewThing(thing);
  return { ...view, labels: presentLabels(view.labels) };
}

/** Labels as GraphQL lists them: `[Label {key value}]`, by key. */
export function presentLabels(labels: Readonly<Record<string, string>>) {
  return Object.keys(labels)
    .sort()
    .map((key) => ({ key, value: labels[key]! }));
}

/** The Group type; `createdAt` null for the pseudo-group `unassigned`. */
export function presentGroup(group: GroupListing) {
  return {
    groupId: shownGroupId(group.groupId),
    description: group.description,
    thingCount: group.thingCount,
    createdAt: group.createdAt === null ? null : toUnixSeconds(group.createdAt),
  };
}

/** The InstallationEntry type: one entry of a thing's installation history. */
export function presentInstallationEntry(entry: InstallationEntry) {
  return { installationStatus: entry.status, timestamp: toUnixSeconds(entry.timestamp), responsible: entry.responsible };
}

/** The InstallationChange type: the thing's status now and the entry that set it. */
export function presentInstallationChange(change: InstallationChange) {
  return {
    tuid: change.thing.tuid,
    installationStatus: change.thing.installationStatus,
    groupId: shownGroupId(change.thing.groupId),
    timestamp: toUnixSeconds(change.entry.timestamp),
    responsible: change.entry.responsible,
  };
}

/** The ApiClient type: never the secret. */
export function presentApiClient(client: ApiClient) {
  return { clientId: client.clientId, name: client.name, createdAt: toUnixSeconds(client.createdAt), revoked: client.revokedAt !== null };
}

/** The MqttCredential type: never the password. */
export function presentMqttCredential(credential: MqttCredential) {
  return {
    username: credential.username,
    kind: credential.kind,
    createdAt: toUnixSeconds(credential.createdAt),
    revoked: credential.revokedAt !== null,
  };
}
