import type { IResolvers } from '@graphql-tools/utils';
import { GraphQLJSON } from './json-scalar.js';
import { alertResolvers } from './alert-resolvers.js';
import { alertWorkResolvers } from './alert-work-resolvers.js';
import { gatewayResolvers } from './gateway-resolvers.js';
import { thingBulkResolvers } from './thing-bulk-resolvers.js';
import { passwordResolvers } from './password-resolvers.js';
import { auditResolvers } from './audit-resolvers.js';
import { catalogResolvers } from './catalog-resolvers.js';
import { commandResolvers } from './command-resolvers.js';
import { deploymentResolvers } from './deployment-resolvers.js';
import { fleetResolvers } from './fleet-resolvers.js';
import { groupResolvers } from './group-resolvers.js';
import { identityResolvers } from './identity-resolvers.js';
import { installationResolvers } from './installation-resolvers.js';
import { messageResolvers } from './message-resolvers.js';
import { seriesResolvers } from './series-resolvers.js';
import { retentionResolvers } from './retention-resolvers.js';
import { sessionResolvers } from './session-resolvers.js';
import { thingResolvers } from './thing-resolvers.js';
import { provisioningResolvers } from './provisioning-resolvers.js';
import { webhookResolvers } from './webhook-resolvers.js';
import { alertRuleResolvers } from './alert-rule-resolvers.js';
import { notificationChannelResolvers } from './notification-channel-resolvers.js';

/** Every resolver of the full schema, by type; each resource lives in its own file. */
export function allResolvers(): IResolvers {
  const groups = [
    sessionResolvers,
    identityResolvers,
    thingResolvers,
    messageResolvers,
    seriesResolvers,
    alertResolvers,
    alertWorkResolvers,
    gatewayResolvers,
    thingBulkResolvers,
    passwordResolvers,
    fleetResolvers,
    catalogResolvers,
    commandResolvers,
    installationResolvers,
    groupResolvers,
    deploymentResolvers,
    retentionResolvers,
    auditResolvers,
    provisioningResolvers,
    webhookResolvers,
    alertRuleResolvers,
    notificationChannelResolvers,
  ] as IResolvers[];
  const merged: Record<string, Record<string, unknown>> = { JSON: GraphQLJSON as never };
  for (const group of groups) {
    for (const [type, fields] of Object.entries(group)) merged[type] = { ...(merged[type] ?? {}), ...(fields as Record<string, unknown>) };
  }
  return merged as IResolvers;
}
