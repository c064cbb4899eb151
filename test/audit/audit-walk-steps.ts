/**
 * The steps of the audit walk (audit-walk.test.ts): one valid call per REST write route, GraphQL mutation and CLI
 * command, each reading what it acts on from the walk's context, which the walk's set-up fills before any step runs.
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { RestClient } from '../helpers/rest-client.js';
import type { TestApp } from '../helpers/test-app.js';

export interface WalkContext {
  server: TestApp;
  rest: RestClient;
  manager: SignedInUser;
  /** A webhook endpoint and one delivery of it (its test event), for the steps that act on them. */
  hookId: string;
  deliveryId: string;
  /** An alert rule for the steps that change it. */
  ruleId: string;
  /** A notification channel for the CLI's update, test and delete steps. */
  channelId: string;
  /** Open alert periods, one per acknowledgement step. */
  alertIds: number[];
  importFile: string;
  credentialFile: string;
}

export const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };
/** Webhook receivers on loopback are allowed here; port 9 refuses at once, so a test event fails fast. */
export const webhookEnv = { WEBHOOK_ALLOW_PRIVATE: '127.0.0.0/8' };
export const hookUrl = 'http://127.0.0.1:9/hook';
export const walkRule = { tsm_id: 1100, field: 'temp', op: 'gt', threshold: 30, severity: 'warning' };
export const walkFiles = {
  importFile: join(tmpdir(), `thingdesk-walk-${process.pid}.csv`),
  credentialFile: join(tmpdir(), `thingdesk-walk-credentials-${process.pid}.csv`),
};

/** A new chat channel of the walk's organization (its test attempt fails fast on port 9). */
async function walkChannel(c: WalkContext): Promise<string> {
  return (await c.rest.post('/notification-channels', { name: 'walk', type: 'chat', url: hookUrl })).body.data.id as string;
}

/** One valid call per REST write route, keyed as the OpenAPI document names it. */
export function restSteps(c: WalkContext): Record<string, () => Promise<{ status: number; text: string }>> {
  return {
    'POST /notification-channels': () =>
      c.rest.post('/notification-channels', { name: 'rest walk', type: 'email', to: ['w@example.test'] }),
    'PATCH /notification-channels/{id}': async () =>
      c.rest.request('PATCH', `/notification-channels/${await walkChannel(c)}`, { body: { name: 'walked' } }),
    'DELETE /notification-channels/{id}': async () => c.rest.delete(`/notification-channels/${await walkChannel(c)}`),
    'POST /notification-channels/{id}/test': async () => c.rest.post(`/notification-channels/${await walkChannel(c)}/test`, {}),
    'PATCH /organization': async () =>
      c.rest.request('PATCH', '/organization', { body: { alert_channels: { 'battery low': [await walkChannel(c)] } } }),
    'POST /auth/client-token': () =>
      new RestClient(c.server).request('POST', '/auth/client-token', {
        body: { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' },
        auth: false,
      }),
    'POST /things/{tuid}/installations': () => c.rest.post('/things/W-2/installations', { installation_status: 'installed' }),
    'POST /things/{tuid}/commands': () => c.rest.post('/things/W-1/commands', [interval]),
    'POST /groups': () => c.rest.post('/groups', { group_id: 'rest-walk' }),
    'POST /groups/{groupid}/rename': () => c.rest.post('/groups/rest-walk/rename', { group_id: 'rest-walked' }),
    'DELETE /groups/{groupid}': () => c.rest.delete('/groups/rest-walked'),
    'POST /things/{tuid}/group': () => c.rest.post('/things/W-1/group', { group_id: 'walk' }),
    'PATCH /things/{tuid}': () => c.rest.request('PATCH', '/things/W-1', { body: { name: 'walked' } }),
    'POST /things/bulk': () => c.rest.post('/things/bulk', { action: 'set_group', group_id: 'unassigned', tuids: ['W-1'] }),
    'POST /alerts/{id}/acknowledge': () => c.rest.post(`/alerts/${c.alertIds[0]}/acknowledge`, { note: 'walk' }),
    'POST /alerts/acknowledge': () => c.rest.post('/alerts/acknowledge', { ids: [c.alertIds[1]] }),
    'POST /webhooks': () => c.rest.post('/webhooks', { url: hookUrl, events: ['alert.closed'] }),
    'PATCH /webhooks/{id}': () => c.rest.request('PATCH', `/webhooks/${c.hookId}`, { body: { description: 'walked' } }),
    'DELETE /webhooks/{id}': async () => {
      const id = (await c.rest.post('/webhooks', { url: hookUrl, events: ['alert.closed'] })).body.data.id;
      return c.rest.delete(`/webhooks/${id}`);
    },
    'POST /webhooks/{id}/rotate-secret': () => c.rest.post(`/webhooks/${c.hookId}/rotate-secret`, {}),
    'POST /webhooks/{id}/test': () => c.rest.post(`/webhooks/${c.hookId}/test`, {}),
    'POST /webhooks/{id}/deliveries/{deliveryId}/replay': () => c.rest.post(`/webhooks/${c.hookId}/deliveries/${c.deliveryId}/replay`, {}),
    'POST /webhooks/{id}/replay': () => c.rest.post(`/webhooks/${c.hookId}/replay`, { since: 0 }),
    'POST /alert-rules': () => c.rest.post('/alert-rules', { ...walkRule, name: 'rest walk' }),
    'PATCH /alert-rules/{id}': () => c.rest.request('PATCH', `/alert-rules/${c.ruleId}`, { body: { threshold: 31 } }),
    'DELETE /alert-rules/{id}': async () =>
      c.rest.delete(`/alert-rules/${(await c.rest.post('/alert-rules', { ...walkRule, name: 'gone' })).body.data.id}`),
    'POST /things/import': () =>
      c.rest.request('POST', '/things/import', { rawBody: 'tuid,name\nW-IMPORT-REST,walked\n', headers: { 'content-type': 'text/csv' } }),
    'POST /mqtt-credentials/import': () =>
      c.rest.request('POST', '/mqtt-credentials/import', {
        rawBody: 'username,kind\nrest-walk-import,gateway\n',
        headers: { 'content-type': 'text/csv' },
      }),
  };
}

/** One valid operation per mutation of the full schema. */
export function mutationSteps(c: WalkContext): Record<string, () => Promise<{ body: { errors?: unknown } }>> {
  return {
    login: async () => (await signInAs(c.server, 'Viewer')).client.request('{ me { id } }'),
    refreshToken: async () => {
      const user = await signInAs(c.server, 'Viewer');
      return user.client.request('mutation($i: RefreshTokenInput!) { refreshToken(refreshTokenInput: $i) { accessToken } }', {
        i: { organizationId: 'acme', refreshToken: user.client.refreshToken },
      });
    },
    logout: async () => (await signInAs(c.server, 'Viewer')).client.request('mutation { logout { success } }'),
    setInstallationStatus: () => c.manager.client.request('mutation { setInstallationStatus(tuid: "W-1", status: "quarantine") { tuid } }'),
    assignThingToGroup: () => c.manager.client.request('mutation { assignThingToGroup(tuid: "W-1", groupId: "unassigned") { tuid } }'),
    assignThingsToGroup: () => c.manager.client.request('mutation { assignThingsToGroup(groupId: "walk", tuids: ["W-1"]) { tuid } }'),
    sendCommands: () =>
      c.manager.client.request('mutation($c: [JSON!]!) { sendCommands(tuid: "W-1", commands: $c) { timestamp } }', { c: [interval] }),
    createGroup: () => c.manager.client.request('mutation { createGroup(groupId: "gql-walk") { groupId } }'),
    renameGroup: () => c.manager.client.request('mutation { renameGroup(groupId: "gql-walk", newGroupId: "gql-walked") { groupId } }'),
    deleteGroup: () => c.manager.client.request('mutation { deleteGroup(groupId: "gql-walked") }'),
    createUser: () =>
      c.manager.client.request('mutation { createUser(email: "walk@acme.test", password: "walk-password-1", role: VIEWER) { id } }'),
    setUserRole: async () => {
      const user = await signInAs(c.server, 'Viewer');
      return c.manager.client.request(`mutation { setUserRole(userId: "${user.userId}", role: INSTALLER) { id } }`);
    },
    deleteUser: async () => {
      const user = await signInAs(c.server, 'Viewer');
      return c.manager.client.request(`mutation { deleteUser(userId: "${user.userId}") }`);
    },
    setRetention: () => c.manager.client.request('mutation { setRetention(rollupRetentionDays: 400) { rollupRetentionDays } }'),
    createApiClient: () => c.manager.client.request('mutation { createApiClient(name: "walk") { clientId } }'),
    revokeApiClient: async () => {
      const made = await c.manager.client.request('mutation { createApiClient(name: "walk2") { clientId } }');
      return c.manager.client.request(
        `mutation { revokeApiClient(clientId: "${(made.body as { data: { createApiClient: { clientId: string } } }).data.createApiClient.clientId}") }`,
      );
    },
    createMqttCredential: () =>
      c.manager.client.request('mutation { createMqttCredential(kind: GATEWAY, username: "gw-walk") { username } }'),
    revokeMqttCredential: () => c.manager.client.request('mutation { revokeMqttCredential(username: "gw-walk") }'),
    updateThing: () => c.manager.client.request('mutation { updateThing(tuid: "W-1", name: "gql-walked") { tuid } }'),
    importThings: () =>
      c.manager.client.request('mutation($c: String!) { importThings(content: $c, format: CSV) { applied } }', {
        c: 'tuid,name\nW-IMPORT-GQL,walked\n',
      }),
    bulkUpdateThings: () =>
      c.manager.client.request('mutation { bulkUpdateThings(action: "set_group", groupId: "walk", tuids: ["W-1"]) { tuid } }'),
    acknowledgeAlert: () => c.manager.client.request(`mutation { acknowledgeAlert(id: "${c.alertIds[2]}") { id } }`),
    acknowledgeAlerts: () => c.manager.client.request(`mutation { acknowledgeAlerts(ids: ["${c.alertIds[3]}"]) { id } }`),
    changePassword: async () => {
      const user = await signInAs(c.server, 'Viewer');
      return user.client.request('mutation($c: String!) { changePassword(current: $c, new: "walk-new-password-1") }', { c: user.password });
    },
    resetUserPassword: async () => {
      const user = await signInAs(c.server, 'Viewer');
      return c.manager.client.request(`mutation { resetUserPassword(userId: "${user.userId}") { password } }`);
    },
    createWebhook: () =>
      c.manager.client.request('mutation($i: WebhookInput!) { createWebhook(input: $i) { secret } }', {
        i: { url: hookUrl, events: ['alert.closed'] },
      }),
    updateWebhook: () => c.manager.client.request(`mutation { updateWebhook(id: "${c.hookId}", input: { description: "gql" }) { id } }`),
    deleteWebhook: async () => {
      const made = await c.rest.post('/webhooks', { url: hookUrl, events: ['alert.closed'] });
      return c.manager.client.request(`mutation { deleteWebhook(id: "${made.body.data.id}") }`);
    },
    rotateWebhookSecret: () => c.manager.client.request(`mutation { rotateWebhookSecret(id: "${c.hookId}") { secret } }`),
    replayWebhookDeliveries: () =>
      c.manager.client.request(`mutation { replayWebhookDeliveries(webhookId: "${c.hookId}", deliveryId: "${c.deliveryId}") }`),
    testWebhook: () => c.manager.client.request(`mutation { testWebhook(id: "${c.hookId}") { durationMs } }`),
    createAlertRule: () =>
      c.manager.client.request('mutation($i: AlertRuleInput!) { createAlertRule(input: $i) { id } }', {
        i: { name: 'gql walk', tsmId: 1100, field: 'temp', op: 'gt', threshold: 30, severity: 'info' },
      }),
    updateAlertRule: () => c.manager.client.request(`mutation { updateAlertRule(id: "${c.ruleId}", input: { threshold: 32 }) { id } }`),
    deleteAlertRule: async () => {
      const made = await c.rest.post('/alert-rules', { ...walkRule, name: 'gql gone' });
      return c.manager.client.request(`mutation { deleteAlertRule(id: "${made.body.data.id}") }`);
    },
    createNotificationChannel: () =>
      c.manager.client.request('mutation($i: NotificationChannelInput!) { createNotificationChannel(input: $i) { id } }', {
        i: { name: 'gql walk', type: 'chat', url: hookUrl },
      }),
    updateNotificationChannel: async () =>
      c.manager.client.request(`mutation { updateNotificationChannel(id: "${await walkChannel(c)}", input: { name: "w" }) { id } }`),
    deleteNotificationChannel: async () =>
      c.manager.client.request(`mutation { deleteNotificationChannel(id: "${await walkChannel(c)}") }`),
    testNotificationChannel: async () =>
      c.manager.client.request(`mutation { testNotificationChannel(id: "${await walkChannel(c)}") { durationMs } }`),
    setAlertChannels: async () =>
      c.manager.client.request(`mutation { setAlertChannels(input: { batteryLow: ["${await walkChannel(c)}"] }) }`),
  };
}

/** Mutations whose step needs more than this file starts, and where their entry is asserted instead. */
export const mutationsTestedElsewhere: Record<string, string> = {
  ssoLogin: "needs an identity provider; its auth.login is the password sign-in's (UserSessions.startSession)",
};

/**
 * Every CLI command: the arguments of a call that writes, or why it changes nothing the log covers. `exitCode`: a
 * step whose command reports a failure it recorded (a test notification to port 9).
 */
export function cliSteps(
  c: WalkContext,
): Record<string, string[] | (() => string[]) | { readsOnly: string } | { args: () => string[]; exitCode: number }> {
  return {
    serve: { readsOnly: 'runs the platform; what it serves records itself' },
    migrate: { readsOnly: "the schema, not an organization's configuration" },
    'org create': ['org', 'create', '--name', 'Walk', '--id', 'walk'],
    'org retention': ['org', 'retention', '--org', 'acme', '--messages-days', '90'],
    'user create': ['user', 'create', '--org', 'acme', '--email', 'cli-walk@acme.test', '--password', 'cli-walk-password'],
    'client create': ['client', 'create', '--org', 'acme', '--client-id', 'cli-walk'],
    'client revoke': ['client', 'revoke', 'cli-walk'],
    'mqtt-credential create': ['mqtt-credential', 'create', '--org', 'acme', '--username', 'cli-walk-gw'],
    'thing release': ['thing', 'release', '--org', 'acme', '--tuid', 'W-2'],
    'keys rotate': ['keys', 'rotate'],
    'keys reset': ['keys', 'reset'],
    simulate: { readsOnly: 'publishes uplinks like any gateway (first claims record themselves)' },
    status: { readsOnly: 'reads the instance register' },
    backup: { readsOnly: 'copies the store' },
    restore: { readsOnly: 'replaces the whole store (its log with it) while no instance runs' },
    'audit verify': { readsOnly: 'reads the log' },
    'audit list': { readsOnly: 'reads the log' },
    'webhook create': ['webhook', 'create', '--org', 'acme', '--url', hookUrl, '--events', 'alert.opened'],
    'webhook list': { readsOnly: 'lists the endpoints' },
    'rule create': [
      'rule',
      'create',
      '--org',
      'acme',
      '--name',
      'cli walk',
      '--tsm-id',
      '1100',
      '--field',
      'temp',
      '--op',
      'gt',
      '--threshold',
      '30',
    ],
    'rule list': { readsOnly: 'lists the alert rules' },
    'channel create': ['channel', 'create', '--org', 'acme', '--name', 'cli walk', '--type', 'email', '--to', 'cli@example.test'],
    'channel list': { readsOnly: 'lists the notification channels' },
    'channel update': () => ['channel', 'update', c.channelId, '--org', 'acme', '--name', 'cli walked'],
    'channel test': { args: () => ['channel', 'test', c.channelId, '--org', 'acme'], exitCode: 1 },
    'channel delete': () => ['channel', 'delete', '--org', 'acme', '--id', c.channelId],
    'webhook deliveries': { readsOnly: 'reads the delivery log' },
    'webhook replay': () => ['webhook', 'replay', '--org', 'acme', c.hookId, '--since', '0'],
    'things import': ['things', 'import', c.importFile, '--org', 'acme'],
    'things export': { readsOnly: 'writes the things to standard output' },
    'mqtt-credential import': ['mqtt-credential', 'import', c.credentialFile, '--org', 'acme'],
  };
}
