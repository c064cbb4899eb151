import { toUnixSeconds } from '../../../domain/clock.js';
import {
  createApiClient,
  createMqttCredential,
  createUser,
  revokeApiClient,
  revokeMqttCredential,
} from '../../../domain/identity/identity-service.js';
import { deleteUser, setUserRole } from '../../../domain/identity/user-admin.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { roleEnum, userOf } from './resolver-helpers.js';

const kindEnum = { GATEWAY: 'gateway', INTEGRATION: 'integration' } as const;

/** What Managers administer in their organization: users, API clients, MQTT credentials. */
export const adminResolvers = {
  Role: { MANAGER: 'Manager', INSTALLER: 'Installer', VIEWER: 'Viewer' },
  MqttCredentialKind: kindEnum,
  Query: {
    users: (_: unknown, _args: unknown, context: GraphqlContext) => context.deps.store.users.list(userOf(context).organizationId),
    apiClients: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await context.deps.store.apiClients.list(userOf(context).organizationId)).map((client) => ({
        clientId: client.clientId,
        name: client.name,
        createdAt: toUnixSeconds(client.createdAt),
        revoked: client.revokedAt !== null,
      })),
    mqttCredentials: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await context.deps.store.mqttCredentials.list(userOf(context).organizationId)).map((credential) => ({
        username: credential.username,
        kind: credential.kind,
        createdAt: toUnixSeconds(credential.createdAt),
        revoked: credential.revokedAt !== null,
      })),
  },
  Mutation: {
    createUser: (_: unknown, args: { email: string; password: string; role: string }, context: GraphqlContext) =>
      createUser(context.deps, { organizationId: userOf(context).organizationId, email: args.email, password: args.password, role: roleEnum[args.role] ?? args.role }),
    setUserRole: async (_: unknown, args: { userId: string; role: string }, context: GraphqlContext) => {
      const manager = userOf(context);
      const before = await context.deps.store.users.get(manager.organizationId, args.userId);
      const updated = await setUserRole(context.deps, manager, { userId: args.userId, role: roleEnum[args.role] ?? args.role });
      // Access tokens carry the role they were issued with: without this, a demoted Manager would keep Manager
      // rights until their token expires. The user signs in again and gets the new role.
      if (before && before.role !== updated.role) await context.deps.sessions.endSessionsOfUser(args.userId, 'role changed');
      return updated;
    },
    deleteUser: async (_: unknown, args: { userId: string }, context: GraphqlContext) => {
      await deleteUser(context.deps, userOf(context), { userId: args.userId });
      await context.deps.sessions.endSessionsOfUser(args.userId, 'user deleted');
      return true;
    },
    createApiClient: async (_: unknown, args: { name: string }, context: GraphqlContext) => {
      const created = await createApiClient(context.deps, { organizationId: userOf(context).organizationId, name: args.name });
      return { clientId: created.client.clientId, clientSecret: created.clientSecret };
    },
    revokeApiClient: async (_: unknown, args: { clientId: string }, context: GraphqlContext) => {
      await revokeApiClient(context.deps, { clientId: args.clientId, organizationId: userOf(context).organizationId });
      return true;
    },
    createMqttCredential: async (_: unknown, args: { kind: string; username?: string | null }, context: GraphqlContext) => {
      const created = await createMqttCredential(context.deps, {
        organizationId: userOf(context).organizationId,
        kind: args.kind,
        username: args.username ?? undefined,
      });
      return { username: created.credential.username, password: created.password, kind: created.credential.kind };
    },
    revokeMqttCredential: async (_: unknown, args: { username: string }, context: GraphqlContext) => {
      await revokeMqttCredential(context.deps, { username: args.username, organizationId: userOf(context).organizationId });
      return true;
    },
  },
};
