/**
 * MQTT_AUTH=mosquitto-dynsec (issue 18): the platform keeps Mosquitto's dynamic security in step with its MQTT
 * credentials. A credential made through GraphQL connects at once; organizations are isolated on the broker as on
 * the embedded one; a revoked credential is disconnected and refused; a broker that lost its state gets every
 * credential back when the platform starts. Runs against a Mosquitto of the test's own (never the shared one).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, describe, test } from 'node:test';
import { connectAsync, type MqttClient } from 'mqtt';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores, createPostgresUrl, createSqliteUrl, postgresSkipReason } from '../helpers/databases.js';
import { DynsecMosquitto, dynsecSkipReason } from '../helpers/dynsec-mosquitto.js';
import { signInAs } from '../helpers/graphql-users.js';
import { eventually } from '../helpers/mqtt-clients.js';
import { RestClient } from '../helpers/rest-client.js';
import { runThingdesk } from '../helpers/run-cli.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const sealingKey = randomBytes(32).toString('base64');
const createCredential = 'mutation($kind: MqttCredentialKind!) { createMqttCredential(kind: $kind) { username password } }';
const revokeCredential = 'mutation($username: String!) { revokeMqttCredential(username: $username) }';

function platformEnv(broker: DynsecMosquitto, databaseUrl: string, name = 'a'): Record<string, string> {
  return {
    DATABASE_URL: databaseUrl,
    MQTT_URL: broker.adminUrl,
    MQTT_AUTH: 'mosquitto-dynsec',
    MQTT_AUTH_SEALING_KEY: sealingKey,
    MQTT_SHARED_GROUP: 'dynsec',
    MQTT_CONSUMER_SLOTS: '1',
    MQTT_CLIENT_ID: `dynsec-${name}`,
  };
}

/** Connects as a credential, with its client id (its username); resolves with the client, or rejects with the broker's refusal. */
function connectAs(broker: DynsecMosquitto, username: string, password: string): Promise<MqttClient> {
  return connectAsync(broker.url, { username, password, clientId: username, protocolVersion: 5, reconnectPeriod: 0, connectTimeout: 5000 });
}

async function refused(broker: DynsecMosquitto, username: string, password: string): Promise<boolean> {
  try {
    const client = await connectAs(broker, username, password);
    await client.endAsync();
    return false;
  } catch {
    return true;
  }
}

describe('MQTT_AUTH=mosquitto-dynsec', { skip: dynsecSkipReason }, () => {
  test(
    'credentials reach the broker at once, organizations stay apart, revocation disconnects, a lost broker state is restored',
    { timeout: 90_000 },
    async () => {
      const broker = await DynsecMosquitto.start();
      const databaseUrl = createSqliteUrl();
      let server: TestApp | undefined = await startTestApp(platformEnv(broker, databaseUrl));
      const clients: MqttClient[] = [];
      try {
        // The bootstrap gateway was provisioned at start, and the platform's own user consumes through the broker.
        const gateway = await connectAs(broker, testBootstrap.BOOTSTRAP_MQTT_USERNAME, testBootstrap.BOOTSTRAP_MQTT_PASSWORD);
        clients.push(gateway);
        await gateway.publishAsync(
          'thingdesk/acme/up/GW-1',
          JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, tsmTuid: 'DYN-1', batl: 70 }]),
          {
            qos: 1,
          },
        );
        const rest = new RestClient(server);
        await eventually(async () => ((await rest.get('/things/DYN-1')).status === 200 ? true : undefined), 10_000, 'the uplink stored');

        // A credential made through GraphQL connects at once.
        const manager = await signInAs(server, 'Manager');
        const made = (await manager.client.request(createCredential, { kind: 'GATEWAY' })).body.data?.createMqttCredential as {
          username: string;
          password: string;
        };
        const fresh = await eventually(
          () => connectAs(broker, made.username, made.password).catch(() => undefined),
          2_000,
          'the new credential accepted',
        );
        clients.push(fresh);

        // Another organization's gateway: neither publishes to nor subscribes to acme's topics.
        await createOrganization({ store: server.app.store, clock: server.app.clock }, { name: 'Globex', id: 'globex' });
        const globexManager = await signInAs(server, 'Manager', { organizationId: 'globex', organizationName: 'Globex' });
        const globex = (await globexManager.client.request(createCredential, { kind: 'GATEWAY' })).body.data?.createMqttCredential as {
          username: string;
          password: string;
        };
        const intruder = await eventually(
          () => connectAs(broker, globex.username, globex.password).catch(() => undefined),
          2_000,
          'the globex gateway',
        );
        clients.push(intruder);
        await assert.rejects(
          intruder.publishAsync(
            'thingdesk/acme/up/GW-9',
            JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_001, tsmTuid: 'DYN-X' }]),
            { qos: 1 },
          ),
          'a publish to another organization is refused',
        );
        for (const filter of ['thingdesk/acme/down/+', 'thingdesk/acme/up/+', 'thingdesk/+/down/+', '#']) {
          await assert.rejects(intruder.subscribeAsync(filter, { qos: 1 }), /Not authorized/, `${filter} refused`);
        }
        assert.equal((await intruder.subscribeAsync('thingdesk/globex/down/+', { qos: 1 }))[0]?.qos, 1, 'its own downlinks granted');
        await intruder.publishAsync(
          'thingdesk/globex/up/GW-9',
          JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_002, tsmTuid: 'GLX-1' }]),
          {
            qos: 1,
          },
        );
        assert.equal((await rest.get('/things/DYN-X')).status, 404, 'nothing of the refused publish was stored');

        // Revoked: disconnected within 2 s, then refused.
        const closed = new Promise<void>((resolve) => fresh.once('close', () => resolve()));
        assert.equal((await manager.client.request(revokeCredential, { username: made.username })).body.data?.revokeMqttCredential, true);
        await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('not disconnected within 2 s')), 2_000))]);
        assert.ok(await refused(broker, made.username, made.password), 'a revoked credential cannot connect again');

        // The broker loses its dynamic security state; a platform start restores every active credential.
        await server.stop();
        server = undefined;
        await broker.reset();
        assert.ok(await refused(broker, globex.username, globex.password), 'the reset broker knows no credential');
        server = await startTestApp(platformEnv(broker, databaseUrl));
        for (const [username, password] of [
          [testBootstrap.BOOTSTRAP_MQTT_USERNAME, testBootstrap.BOOTSTRAP_MQTT_PASSWORD],
          [globex.username, globex.password],
        ] as const) {
          clients.push(await connectAs(broker, username, password));
        }
        assert.ok(await refused(broker, made.username, made.password), 'the revoked one stays out');
      } finally {
        for (const client of clients) await client.endAsync(true).catch(() => undefined);
        await server?.stop();
        await broker.stop();
      }
    },
  );

  test(
    'a credential made with the CLI next to a running platform reaches the broker within the comparison interval',
    { timeout: 60_000 },
    async () => {
      const broker = await DynsecMosquitto.start();
      const env = platformEnv(broker, createSqliteUrl());
      const server = await startTestApp(env);
      try {
        const made = await runThingdesk(['mqtt-credential', 'create', '--org', 'acme', '--username', 'cli-gw-1', '--json'], env);
        assert.equal(made.code, 0, made.stderr);
        const { password } = JSON.parse(made.stdout) as { password: string };
        const client = await eventually(
          () => connectAs(broker, 'cli-gw-1', password).catch(() => undefined),
          15_000,
          'the CLI credential accepted',
        );
        await client.endAsync();
      } finally {
        await server.stop();
        await broker.stop();
      }
    },
  );

  test('start-up fails naming MQTT_AUTH when MQTT_URL is not a dynamic security admin', { timeout: 30_000 }, async () => {
    const broker = await DynsecMosquitto.start();
    try {
      await assert.rejects(
        startTestApp({ ...platformEnv(broker, createSqliteUrl()), MQTT_URL: `mqtt://nobody:wrong@127.0.0.1:${broker.port}` }),
        /MQTT_AUTH/,
      );
    } finally {
      await broker.stop();
    }
  });
});

describe('MQTT_AUTH=mosquitto-dynsec with two instances', { skip: dynsecSkipReason ?? postgresSkipReason }, () => {
  test('a credential made through A connects at once; revoked through B, it is disconnected within 2 s', { timeout: 90_000 }, async () => {
    const broker = await DynsecMosquitto.start();
    const databaseUrl = await createPostgresUrl();
    const run = randomBytes(3).toString('hex');
    const instances: TestApp[] = [];
    try {
      for (const name of ['a', 'b']) instances.push(await startTestApp(platformEnv(broker, databaseUrl, `${name}-${run}`)));
      const onA = await signInAs(instances[0]!, 'Manager');
      const made = (await onA.client.request(createCredential, { kind: 'GATEWAY' })).body.data?.createMqttCredential as {
        username: string;
        password: string;
      };
      const gateway = await eventually(
        () => connectAs(broker, made.username, made.password).catch(() => undefined),
        2_000,
        'accepted at once',
      );
      const onB = await signInAs(instances[1]!, 'Manager');
      const closed = new Promise<void>((resolve) => gateway.once('close', () => resolve()));
      assert.equal((await onB.client.request(revokeCredential, { username: made.username })).body.data?.revokeMqttCredential, true);
      await Promise.race([closed, new Promise((_, reject) => setTimeout(() => reject(new Error('not disconnected within 2 s')), 2_000))]);
      assert.ok(await refused(broker, made.username, made.password));
      await gateway.endAsync(true);
    } finally {
      for (const instance of instances) await instance.stop();
      await forgetConsumerSessions(broker.adminUrl, 'dynsec', 1).catch(() => undefined);
      await broker.stop();
    }
  });
});
