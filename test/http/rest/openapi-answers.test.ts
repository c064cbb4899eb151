/**
 * The OpenAPI document against real HTTP (issue 19): each operation's main success and error answers match the
 * document (RestClient checks every response against it), and every operation answered both.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { compileContract } from '../../helpers/openapi-contract.js';
import { RestClient } from '../../helpers/rest-client.js';
import type { TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks, summaryUplinks } from '../../helpers/uplinks.js';
import { startWithDocument, type ServedDocument } from './openapi-document-helpers.js';

after(cleanupStores);
after(closeMqttClients);

describe('the OpenAPI document over HTTP', () => {
  let server: TestApp;
  let document: ServedDocument;
  before(async () => {
    ({ server, document } = await startWithDocument());
  });
  after(() => server?.stop());

  test('each operation: its main success and error answers over HTTP match the document', async () => {
    const rest = new RestClient(server);
    const contract = compileContract(document);
    await publishUplinks(server, summaryUplinks(Math.floor(Date.now() / 1000) - 60));
    const exercised = new Map<string, Set<number>>();
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      options: { auth?: boolean; rawBody?: string; headers?: Record<string, string> } = {},
    ) => {
      // RestClient fails on any answer outside the document; this records which operations answered what.
      const response = await rest.request(method, path, { ...options, ...(body !== undefined && { body }) });
      const id = contract.operationOf(method, path)!;
      assert.ok(id, `${method} ${path} is documented`);
      exercised.set(id, (exercised.get(id) ?? new Set()).add(response.status));
      return response;
    };
    const tuid = summaryUplinks(0)[0]!.tsmTuid as string;
    await call('POST', '/auth/client-token', { client_id: 'acme-client', client_secret: 'acme-client-secret-0123456789' }, { auth: false });
    await call('POST', '/auth/client-token', { client_id: 'acme-client', client_secret: 'wrong-secret-but-long-enough' }, { auth: false });
    await call('GET', '/things');
    await call('GET', '/things?limit=0');
    await call('GET', `/things/${tuid}`);
    await call('GET', '/things/NO-SUCH-THING');
    await call('GET', `/things/${tuid}/messages?limit=5`);
    await call('GET', `/things/${tuid}/messages`);
    await call('GET', `/things/${tuid}/messages/export?format=csv&messageid=1110`);
    await call('GET', `/things/${tuid}/messages/export?format=xlsx`);
    await call('GET', '/groups/unassigned/messages/export');
    await call('GET', '/groups/no-such-group/messages/export');
    await call('GET', `/things/${tuid}/series?tsmId=12100&field=temp&from=0&to=100000`);
    await call('GET', `/things/${tuid}/series?tsmId=12100&field=temp&from=10&to=0`);
    await call('GET', '/groups/unassigned/series?tsmId=12100&field=temp&from=0&to=100000&bucket=raw');
    await call('GET', '/groups/no-such-group/series?tsmId=12100&field=temp&from=0&to=100000');
    await call('POST', `/things/${tuid}/commands`, [
      { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 },
    ]);
    await call('POST', `/things/${tuid}/commands`, [{ tsmId: 1 }]);
    await call('GET', `/things/${tuid}/commands`);
    await call('GET', '/things/NO-SUCH-THING/commands');
    await call('POST', `/things/${tuid}/installations`, { installation_status: 'installed' });
    await call('POST', `/things/${tuid}/installations`, { installation_status: 'new' });
    await call('GET', `/things/${tuid}/installations`);
    await call('GET', '/things/NO-SUCH-THING/installations');
    await call('POST', '/groups', { group_id: 'contract', group_description: 'Contract test' });
    await call('POST', '/groups', { group_id: 'contract' });
    await call('GET', '/groups');
    await call('GET', '/groups?limit=0');
    await call('POST', '/groups/contract/rename', { group_id: 'contract-2' });
    await call('POST', '/groups/no-such-group/rename', { group_id: 'x' });
    await call('GET', '/groups/contract-2/things');
    await call('GET', '/groups/no-such-group/things');
    await call('POST', `/things/${tuid}/group`, { group_id: 'contract-2' });
    await call('POST', `/things/${tuid}/group`, { group_id: 'no-such-group' });
    await call('GET', `/things/${tuid}/group`);
    await call('GET', '/things/NO-SUCH-THING/group');
    await call('DELETE', '/groups/contract-2');
    await call('DELETE', '/groups/contract-2');
    await call('GET', '/catalog');
    await call('GET', '/catalog', undefined, { auth: false });
    await call('GET', '/catalog/1110');
    await call('GET', '/catalog/99999');
    await call('GET', `/things/${tuid}/alerts`);
    await call('GET', '/things/NO-SUCH-THING/alerts');
    await call('GET', '/things/alerts');
    await call('GET', '/things/alerts', undefined, { auth: false });
    await call('GET', '/things/alerts/count');
    await call('GET', '/things/alerts/count', undefined, { auth: false });
    await call('GET', '/organization');
    await call('GET', '/organization', undefined, { auth: false });
    await call('PATCH', `/things/${tuid}`, { name: 'Contract', labels: { site: 'x' } });
    await call('PATCH', '/things/NO-SUCH-THING', { name: 'x' });
    const csv = { headers: { 'content-type': 'text/csv' } };
    await call('POST', '/things/import?dry_run=true', undefined, { ...csv, rawBody: `tuid,name\n${tuid},Contract\n` });
    await call('POST', '/things/import', undefined, { ...csv, rawBody: 'tuid,colour\nX,red\n' });
    await call('GET', '/things/export?format=csv');
    await call('GET', '/things/export?format=xml');
    await call('POST', '/mqtt-credentials/import?dry_run=true', undefined, { ...csv, rawBody: 'username,kind\ncontract-gw,gateway\n' });
    await call('POST', '/mqtt-credentials/import', undefined, { ...csv, rawBody: 'username,colour\nx,red\n' });
    await call('GET', '/fleet/health');
    await call('GET', '/fleet/health?days=0');
    // SPEC section 16.
    const gatewayTuid = ((await call('GET', '/things')).body as { data: { things: { gateway_tuid: string }[] } }).data.things[0]!
      .gateway_tuid;
    await call('GET', '/gateways');
    await call('GET', '/gateways?state=asleep');
    await call('GET', `/gateways/${gatewayTuid}`);
    await call('GET', '/gateways/NO-SUCH-GATEWAY');
    await call('POST', '/things/bulk', {
      action: 'set_installation_status',
      installation_status: 'installed',
      tuids: [tuid, 'not a tuid'],
    });
    await call('POST', '/things/bulk', { action: 'paint', tuids: [tuid] });
    await server.app.store.alerts.open({ organizationId: 'acme', tuid, alertType: 'battery low', openedAt: Date.now() });
    const alerts = (await call('GET', '/alerts?state=open')).body as { data: { alerts: { id: number }[] } };
    await call('GET', '/alerts?state=later');
    await call('POST', `/alerts/${alerts.data.alerts[0]!.id}/acknowledge`, { note: 'seen' });
    await call('POST', '/alerts/999999999/acknowledge', {});
    await call('POST', '/alerts/acknowledge', { ids: [alerts.data.alerts[0]!.id] });
    await call('POST', '/alerts/acknowledge', {});
    await call('GET', '/audit?limit=5');
    await call('GET', '/audit?limit=0');
    await call('GET', '/audit/verify');
    await call('GET', '/audit/verify', undefined, { auth: false });
    await call('GET', '/audit/export');
    await call('GET', '/audit/export', undefined, { auth: false });
    // A name that resolves to loopback: accepted at creation, refused at each attempt (no request leaves).
    const hook = (await call('POST', '/webhooks', { url: 'http://localhost./hook', events: ['message.stored'] })).body.data.id as string;
    await call('POST', '/webhooks', { url: 'http://10.0.0.1/', events: ['message.stored'] });
    await call('GET', '/webhooks');
    await call('GET', '/webhooks', undefined, { auth: false });
    await call('GET', `/webhooks/${hook}`);
    await call('GET', '/webhooks/no-such-webhook');
    await call('PATCH', `/webhooks/${hook}`, { enabled: false });
    await call('PATCH', '/webhooks/no-such-webhook', { enabled: true });
    await call('POST', `/webhooks/${hook}/rotate-secret`);
    await call('POST', '/webhooks/no-such-webhook/rotate-secret');
    await call('POST', `/webhooks/${hook}/test`);
    await call('POST', '/webhooks/no-such-webhook/test');
    const delivery = (await call('GET', `/webhooks/${hook}/deliveries`)).body.data[0].id as string;
    await call('GET', '/webhooks/no-such-webhook/deliveries');
    await call('POST', `/webhooks/${hook}/deliveries/${delivery}/replay`);
    await call('POST', `/webhooks/${hook}/deliveries/no-such-delivery/replay`);
    await call('POST', `/webhooks/${hook}/replay`, { since: 0 });
    await call('POST', '/webhooks/no-such-webhook/replay', { since: 0 });
    await call('DELETE', `/webhooks/${hook}`);
    await call('DELETE', `/webhooks/${hook}`);
    const rule = { name: 'contract', tsm_id: 12100, field: 'temp', op: 'gt', threshold: 30, severity: 'warning' };
    const ruleId = (await call('POST', '/alert-rules', rule)).body.data.id as string;
    await call('POST', '/alert-rules', rule);
    await call('GET', '/alert-rules');
    await call('GET', '/alert-rules', undefined, { auth: false });
    await call('GET', `/alert-rules/${ruleId}`);
    await call('GET', '/alert-rules/no-such-rule');
    await call('PATCH', `/alert-rules/${ruleId}`, { for_s: 60 });
    await call('PATCH', `/alert-rules/${ruleId}`, { op: 'above' });
    await call('DELETE', `/alert-rules/${ruleId}`);
    await call('DELETE', `/alert-rules/${ruleId}`);
    const channel = (await call('POST', '/notification-channels', { name: 'contract', type: 'chat', url: 'http://localhost./hook' })).body
      .data.id as string;
    await call('POST', '/notification-channels', { name: 'contract', type: 'email', to: ['not an address'] });
    await call('GET', '/notification-channels');
    await call('GET', '/notification-channels', undefined, { auth: false });
    await call('GET', `/notification-channels/${channel}`);
    await call('GET', '/notification-channels/no-such-channel');
    await call('PATCH', `/notification-channels/${channel}`, { name: 'contracted' });
    await call('PATCH', `/notification-channels/${channel}`, { url: 'ftp://example.com' });
    await call('POST', `/notification-channels/${channel}/test`);
    await call('POST', '/notification-channels/no-such-channel/test');
    await call('GET', `/notification-channels/${channel}/deliveries`);
    await call('GET', '/notification-channels/no-such-channel/deliveries');
    await call('PATCH', '/organization', { alert_channels: { 'battery low': [channel] } });
    await call('PATCH', '/organization', { alert_channels: { 'battery low': ['no-such-channel'] } });
    await call('DELETE', `/notification-channels/${channel}`);
    await call('DELETE', `/notification-channels/${channel}`);
    const ids = Object.values(document.paths).flatMap((methods) => Object.values(methods).map((operation) => operation.operationId));
    for (const id of ids) {
      const statuses = [...(exercised.get(id) ?? [])];
      assert.ok(statuses.includes(200) && statuses.some((status) => status >= 400), `${id}: answered ${statuses.join() || 'nothing'}`);
    }
  });
});
