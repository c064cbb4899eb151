/** What the command history tests share: a server with the things they command, a gateway to answer for them, and a rival's token. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import type { MqttClient } from 'mqtt';
import { createApiClient, createOrganization } from '../../../src/domain/identity/identity-service.js';
import type { FleetHandle } from '../../../src/simulator/index.js';
import type { StoreTarget } from '../../helpers/databases.js';
import { connectMqtt } from '../../helpers/mqtt-clients.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';

export const t0 = 1_790_000_000;
export const interval = (transactionId: number) => ({
  tsmId: 1500,
  tsmEv: 30,
  transactionId,
  measurementInterval: 60,
  reportInterval: 300,
});
export const echo = (tuid: string, transactionId: number) => ({
  ...interval(transactionId),
  tsmEv: 31,
  tsmTs: t0 + 100,
  tsmTuid: tuid,
  tsmGw: 'GW-1',
});

interface TrackedCommand {
  transactionId: number;
  status: string;
  response: Record<string, unknown> | null;
  respondedAt: number | null;
}
interface HistoryRecord {
  tuid: string;
  timestamp: number;
  responsible: string;
  command: TrackedCommand;
  commands: TrackedCommand[];
}

export interface CommandHistoryContext {
  server: TestApp;
  rest: RestClient;
  /** Acme's gateway GW-1, which the things' uplinks come through. */
  gateway: MqttClient;
  /** A token of another organization, `rival`. */
  rivalToken: string;
  /** A simulated fleet a test may start; stopped after the tests. */
  fleet: FleetHandle | undefined;
}

/**
 * Registers, inside a describe, a fresh server on the target where the things HIST-1, MATCH-1, MATCH-2 and ISO-1
 * have reported; the context is filled before the first test.
 */
export function commandHistoryServer(target: StoreTarget): CommandHistoryContext {
  const context = {} as CommandHistoryContext;
  before(async () => {
    context.server = await startTestApp({ DATABASE_URL: await target.createUrl() });
    const { server } = context;
    const rest = new RestClient(server);
    context.rest = rest;
    context.gateway = await connectMqtt(server.mqttUrl, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
    });
    await commandCalls(context).uplink(
      ['HIST-1', 'MATCH-1', 'MATCH-2', 'ISO-1'].map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: t0, tsmTuid: tuid, uptime: 5 })),
    );
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Rival', id: 'rival' });
    const { client, clientSecret } = await createApiClient(deps, { organizationId: 'rival', name: 'rival' });
    const token = await rest.post('/auth/client-token', { client_id: client.clientId, client_secret: clientSecret }, { auth: false });
    context.rivalToken = token.body.data.token;
  });
  after(async () => {
    await context.fleet?.stop();
    await context.server?.stop();
  });
  return context;
}

/** The calls every command history test makes, as Acme. */
export function commandCalls(context: CommandHistoryContext) {
  const uplink = (messages: unknown[]) => context.gateway.publishAsync('thingdesk/acme/up/GW-1', JSON.stringify(messages), { qos: 1 });
  const send = async (tuid: string, commands: unknown[]) => {
    const response = await context.rest.post(`/things/${tuid}/commands`, commands);
    assert.equal(response.status, 200, response.text);
    return response.body.data as { timestamp: number; commands: Record<string, unknown>[] };
  };
  const history = async (tuid: string, query = '') => {
    const response = await context.rest.get<{ data: HistoryRecord[] }>(`/things/${tuid}/commands${query}`);
    assert.equal(response.status, 200, response.text);
    return response.body.data;
  };
  /** The tracked command with this transactionId in the thing's history. */
  const trackedCommand = async (tuid: string, transactionId: number) =>
    (await history(tuid)).flatMap((record) => record.commands).find((command) => command.transactionId === transactionId);
  return { uplink, send, history, trackedCommand };
}
