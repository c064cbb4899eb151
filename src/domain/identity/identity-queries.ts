import type { DomainDeps } from '../domain-deps.js';
import { notFound } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import type { ApiClient, MqttCredential, Organization, User } from './types.js';

/** The caller's organization; NOT_FOUND when it was deleted while the caller's token was still valid. */
export async function getOwnOrganization(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<Organization> {
  const organization = await deps.store.organizations.get(principal.organizationId);
  if (!organization) throw notFound('Your organization no longer exists.');
  return organization;
}

/** The users of the caller's organization. */
export function listUsers(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<User[]> {
  return deps.store.users.list(principal.organizationId);
}

/** The API clients of the caller's organization, revoked ones included. */
export function listApiClients(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<ApiClient[]> {
  return deps.store.apiClients.list(principal.organizationId);
}

/** The MQTT credentials of the caller's organization, revoked ones included. */
export function listMqttCredentials(deps: Pick<DomainDeps, 'store'>, principal: Principal): Promise<MqttCredential[]> {
  return deps.store.mqttCredentials.list(principal.organizationId);
}
