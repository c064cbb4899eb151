/**
 * Client ids bound to credentials on Mosquitto's dynamic security (issue 32 finding 4): another organization's
 * gateway connected with this organization's gateway client id, got `sessionPresent: true` and the queued command,
 * and the real gateway was kicked. Each credential's broker client is now bound to one client id, its username.
 * Runs against a Mosquitto of the test's own (never the shared one), on PostgreSQL when there is one.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connect as mqttConnect, connectAsync, type IClientOptions, type MqttClient } from 'mqtt';
import { DynsecClient } from '../../src/mqtt/dynsec-client.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, createPostgresUrl, createSqliteUrl, postgresSkipReason } from '../helpers/databases.js';
import { DynsecMosquitto, dynsecSkipReason } from '../helpers/dynsec-mosquitto.js';
import { signInAs } from '../helpers/graphql-users.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { startTestApp, testBootstrap } from '../helpers/test-app.js';

after(cleanupStores);

const createCredential = 'mutation($kind: MqttCredentialKind!) { createMqttCredential(kind: $kind) { username password } }';
const gatewayClientId = testBootstrap.BOOTSTRAP_MQTT_USERNAME;

describe("MQTT_AUTH=mosquitto-dynsec: a client id is its credential's", { skip: dynsecSkipReason }, () => {
  test(
    "another organization's gateway cannot take this gateway's client id: refused, the gateway stays, its queued command stays",
    { timeout: 90_000 },
    async () => {
      const broker = await DynsecMosquitto.start();
      const databaseUrl = postgresSkipReason ? createSqliteUrl() : await createPostgresUrl();
      const server = await startTestApp({
        DATABASE_URL: databaseUrl,
        MQTT_URL: broker.adminUrl,
        MQTT_AUTH: 'mosquitto-dynsec',
        MQTT_AUTH_SEALING_KEY: randomBytes(32).toString('base64'),
        MQTT_SHARED_GROUP: `dynsec-ids-${randomBytes(3).toString('hex')}`,
        MQTT_CONSUMER_SLOTS: '1',
      });
      const clients: MqttClient[] = [];
      // Every client's messages go to whoever waits for one: attached before the CONNACK, so a resumed session's
      // queued messages (sent right after it) are never missed.
      let pendingMessage: ((topic: string) => void) | undefined;
      const connect = (options: IClientOptions) =>
        new Promise<MqttClient>((resolve, reject) => {
          const client = mqttConnect(broker.url, { protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000, ...options });
          clients.push(client);
          client.on('message', (topic) => pendingMessage?.(topic));
          client.once('connect', () => resolve(client));
          client.once('error', reject);
          client.once('close', () => reject(new Error('closed before CONNACK')));
        });
      const session = { clean: false, properties: { sessionExpiryInterval: 3600 } };
      const gatewayLogin = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
      try {
        // acme's gateway: a persistent session subscribed to its downlinks, and a thing to command.
        const gateway = await connect({ ...gatewayLogin, clientId: gatewayClientId, ...session });
        await gateway.subscribeAsync('thingdesk/acme/down/+', { qos: 1 });
        await gateway.publishAsync(
          'thingdesk/acme/up/GW-1',
          JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, tsmTuid: 'IDS-1' }]),
          {
            qos: 1,
          },
        );
        const rest = new RestClient(server);
        await eventually(async () => ((await rest.get('/things/IDS-1')).status === 200 ? true : undefined), 10_000, 'the thing stored');

        // globex's gateway, a valid credential of another organization.
        await createOrganization({ store: server.app.store, clock: server.app.clock }, { name: 'Globex', id: 'globex' });
        const globexManager = await signInAs(server, 'Manager', { organizationId: 'globex', organizationName: 'Globex' });
        const globex = (await globexManager.client.request(createCredential, { kind: 'GATEWAY' })).body.data?.createMqttCredential as {
          username: string;
          password: string;
        };
        const own = await eventually(
          () => connect({ username: globex.username, password: globex.password, clientId: globex.username }).catch(() => undefined),
          5_000,
          'the globex gateway connects with its own client id',
        );
        await own.endAsync();

        // While acme's gateway is connected: refused, and the gateway is not kicked.
        let kicked = false;
        gateway.on('close', () => (kicked = true));
        await assert.rejects(
          connect({ username: globex.username, password: globex.password, clientId: gatewayClientId, ...session }),
          /Not authorized|Bad User Name or Password|Client Identifier not valid/i,
        );
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(kicked, false, 'the real gateway stays connected');
        assert.equal(gateway.connected, true);

        // While it is away: a command queued in its session is not delivered to the intruder.
        await gateway.endAsync();
        const manager = await signInAs(server, 'Manager');
        const sent = await manager.client.request(
          'mutation { sendCommands(tuid: "IDS-1", commands: [{tsmId: 1500, tsmEv: 30, transactionId: 7, measurementInterval: 60, reportInterval: 300}]) { tuid } }',
        );
        assert.equal(sent.body.errors, undefined, JSON.stringify(sent.body.errors));
        await assert.rejects(connect({ username: globex.username, password: globex.password, clientId: gatewayClientId, ...session }));

        // The gateway comes back to its session and gets its command.
        const back = connect({ ...gatewayLogin, clientId: gatewayClientId, ...session });
        const command = new Promise<string>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('the queued command never came')), 10_000);
          // Listening before the CONNACK: the broker sends a resumed session's messages right after it.
          pendingMessage = (topic) => {
            clearTimeout(timer);
            resolve(topic);
          };
        });
        assert.equal((await back).connected, true);
        assert.equal(await command, 'thingdesk/acme/down/IDS-1');
      } finally {
        for (const client of clients) await client.endAsync(true).catch(() => undefined);
        await server.stop();
        await broker.stop();
      }
    },
  );

  test('a credential provisioned before client ids were bound is bound at the next comparison', { timeout: 60_000 }, async () => {
    const broker = await DynsecMosquitto.start();
    const server = await startTestApp({
      MQTT_URL: broker.adminUrl,
      MQTT_AUTH: 'mosquitto-dynsec',
      MQTT_AUTH_SEALING_KEY: randomBytes(32).toString('base64'),
      MQTT_SHARED_GROUP: 'dynsec-ids-upgrade',
      MQTT_CONSUMER_SLOTS: '1',
    });
    const admin = await connectAsync(broker.adminUrl, { protocolVersion: 5, reconnectPeriod: 0, clientId: 'test-dynsec-admin' });
    const login = { username: testBootstrap.BOOTSTRAP_MQTT_USERNAME, password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD };
    const connectsWith = async (clientId: string) => {
      try {
        const client = await connectAsync(broker.url, { ...login, clientId, protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 });
        await client.endAsync();
        return true;
      } catch {
        return false;
      }
    };
    try {
      // As an older platform left it: the client has no client id of its own.
      const dynsec = new DynsecClient(admin);
      await dynsec.listen();
      const [unbound] = await dynsec.run([{ command: 'setClientId', username: login.username }]);
      assert.equal(unbound?.error, undefined);
      assert.equal(await connectsWith('any-client-id'), true, 'unbound: any client id was accepted');
      // A new credential makes the platform compare the broker with the store at once.
      const manager = await signInAs(server, 'Manager');
      await manager.client.request(createCredential, { kind: 'GATEWAY' });
      await eventually(async () => ((await connectsWith('any-client-id')) ? undefined : true), 15_000, 'the client id bound');
      assert.equal(await connectsWith(login.username), true, 'its own client id still connects');
    } finally {
      await admin.endAsync();
      await server.stop();
      await broker.stop();
    }
  });
});
