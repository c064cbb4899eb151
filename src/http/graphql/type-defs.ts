import { scalarsAndEnumsSdl } from './schema/scalars-and-enums.js';
import { accountsSdl } from './schema/accounts.js';
import { thingsAndGroupsSdl } from './schema/things-and-groups.js';
import { alertsSdl } from './schema/alerts.js';
import { installationsAndCommandsSdl } from './schema/installations-and-commands.js';
import { administrationSdl } from './schema/administration.js';
import { auditSdl } from './schema/audit.js';
import { seriesSdl } from './schema/series.js';
import { fleetHealthSdl } from './schema/fleet-health.js';
import { operationsSdl } from './schema/operations.js';
import { operatorWorkSdl } from './schema/operator-work.js';
import { provisioningSdl } from './schema/provisioning.js';
import { webhooksSdl } from './schema/webhooks.js';
import { alertRulesSdl } from './schema/alert-rules.js';
import { notificationChannelsSdl } from './schema/notification-channels.js';

/**
 * The full GraphQL schema (SPEC section 4). Each role sees a part of it (access.ts); the fixed operations of the
 * SPEC table keep exactly these names and shapes, and arguments keep their types. Descriptions end up in
 * introspection and the published SDL, so they are written for the people who read them; every type, field,
 * argument and enum value has one (a test checks). Closed sets that are returned are enums whose values keep the
 * spelling REST and the live streams use (`installed`, `opened`, ...), so nothing changes on the wire; alert types,
 * whose names have spaces, keep their `String` field with an enum field beside it.
 *
 * The parts live in schema/, one per resource; they are joined in the order the types have always had, so the
 * published SDL and introspection list them as before.
 */
export const typeDefs = [
  scalarsAndEnumsSdl,
  accountsSdl,
  thingsAndGroupsSdl,
  alertsSdl,
  installationsAndCommandsSdl,
  administrationSdl,
  seriesSdl,
  fleetHealthSdl,
  auditSdl,
  provisioningSdl,
  webhooksSdl,
  operationsSdl,
  operatorWorkSdl,
  alertRulesSdl,
  notificationChannelsSdl,
].join('');
