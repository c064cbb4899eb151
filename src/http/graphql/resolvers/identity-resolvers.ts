import {
  createApiClient,
  createMqttCredential,
  createUser,
  revokeApiClient,
  revokeMqttCredential,
} from '../../../domain/identity/identity-service.js';
import { getOwnOrganization, listApiClients, listMqttCredentials, listUsers } from '../../../domain/identity/identity-queries.js';
import { deleteUser, setUserRole } from '../../../domain/identity/user-admin.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { mqttCredentialKindEnum, presentApiClient, presentMqttCredential, roleEnum } from '../presenters.js';
import { userOf } from './resolver-helpers.js';

/**
 * Who the caller is, and what Managers administer in their organization: users, API clients, MQTT credentials.
 */
export const identityResolvers = {
  Role: roleEnum,
  MqttCredentialKind: mqttCredentialKindEnum,
  Query: {
    me: (_: unknown, _args: unknown, context: GraphqlContext) => {
      const user = userOf(context);
      return { id: user.userId, email: user.email, role: user.role, organizationId: user.organizationId };
    },
    organization: async (_: unknown, _args: unknown, context: GraphqlContext) => {
      const organization = await getOwnOrganization(context.deps, userOf(context));
      return { id: organization.id, name: organization.name };
    },
    users: (_: unknown, _args: unknown, context: GraphqlContext) => listUsers(context.deps, userOf(context)),
    apiClients: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await listApiClients(context.deps, userOf(context))).map(presentApiClient),
    mqttCredentials: async (_: unknown, _args: unknown, context: GraphqlContext) =>
      (await listMqttCredentials(context.deps, userOf(context))).map(presentMqttCredential),
  },
  Mutation: {
    createUser: (_: unknown, args: { email: string; password: string; role: string }, context: GraphqlContext) =>
      createUser(context.deps, {
        organizationId: userOf(context).organizationId,
        by: userOf(context),
        email: args.email,
        password: args.password,
        role: roleEnum[args.role] ?? args.role,
      }),
    setUserRole: (_: unknown, args: { userId: string; role: string }, context: GraphqlContext) =>
      setUserRole(context.deps, userOf(context), { userId: args.userId, role: roleEnum[args.role] ?? args.role }),
    deleteUser: async (_: unknown, args: { userId: string }, context: GraphqlContext) => {
      await deleteUser(context.deps, userOf(context), { userId: args.userId });
      return true;
    },
    createApiClient: async (_: unknown, args: { name: string }, context: GraphqlContext) => {
      const created = await createApiClient(context.deps, {
        organizationId: userOf(context).organizationId,
        by: userOf(context),
        name: args.name,
      });
      return { clientId: created.client.clientId, clientSecret: created.clientSecret };
    },
    revokeApiClient: async (_: unknown, args: { clientId: string }, context: GraphqlContext) => {
      await revokeApiClient(context.deps, { clientId: args.clientId, organizationId: userOf(context).organizationId, by: userOf(context) });
      return true;
    },
    createMqttCredential: async (_: unknown, args: { kind: string; username?: string | null }, context: GraphqlContext) => {
      const created = await createMqttCredential(context.deps, {
        organizationId: userOf(context).organizationId,
        by: userOf(context),
        kind: args.kind,
        username: args.username ?? undefined,
      });
      return { username: created.credential.username, password: created.password, kind: created.credential.kind };
    },
    revokeMqttCredential: async (_: unknown, args: { username: string }, context: GraphqlContext) => {
      await revokeMqttCredential(context.deps, {
        username: args.username,
        organizationId: userOf(context).organizationId,
        by: userOf(context),
      });
      return true;
    },
  },
};
