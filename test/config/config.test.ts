import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { configVariables, loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/config-error.js';

describe('configuration', () => {
  test('defaults match SPEC section 1 when nothing is set', () => {
    const config = loadConfig({});
    assert.equal(config.port, 8080);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'file:./data/thingdesk.db');
    assert.equal(config.mqttUrl, undefined);
    assert.equal(config.mqttPort, 1883);
    assert.equal(config.mqttReceiveMaximum, 32);
    assert.equal(config.restBasePath, '/api/v1');
    assert.equal(config.graphqlPath, '/v1/graphql');
    assert.equal(config.alertTimeZone, 'UTC');
    assert.equal(config.gatewayTimeoutS, 900);
    assert.equal(config.deviceTimeoutS, 3600);
    assert.equal(config.heapGrowingPercent, 100);
    assert.equal(config.alertIntervalS, 30);
    assert.equal(config.integrationTopic, 'thingdesk/{org}/data/{group}/{tuid}/{tsmId}');
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.bootstrap, {});
  });

  test('valid values are read and typed', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://user:pw@db:5432/things',
      MQTT_URL: 'mqtt://broker:1883',
      MQTT_PORT: '0',
      MQTT_RECEIVE_MAXIMUM: '100',
      REST_BASE_PATH: '/prod/v1',
      GRAPHQL_PATH: '/v1/graphql',
      ALERT_TIMEZONE: 'Europe/Helsinki',
      GATEWAY_TIMEOUT_S: '60',
      INTEGRATION_TOPIC: 'cloudext/json/pr/fi/{org}/{group}/{tuid}/{tsmId}',
      LOG_LEVEL: 'DEBUG',
      BOOTSTRAP_ORG: 'Acme',
      BOOTSTRAP_CLIENT_ID: 'acme-client',
      HEAP_GROWING_PERCENT: '0',
    });
    assert.equal(config.port, 9000);
    assert.equal(config.mqttUrl, 'mqtt://broker:1883');
    assert.equal(config.mqttPort, 0);
    assert.equal(config.mqttReceiveMaximum, 100);
    assert.equal(config.restBasePath, '/prod/v1');
    assert.equal(config.alertTimeZone, 'Europe/Helsinki');
    assert.equal(config.gatewayTimeoutS, 60);
    assert.equal(config.logLevel, 'debug');
    assert.deepEqual(config.bootstrap, { organizationName: 'Acme', clientId: 'acme-client' });
    assert.equal(config.heapGrowingPercent, 0);
  });

  test('an empty value counts as unset', () => {
    assert.equal(loadConfig({ MQTT_URL: '', PORT: ' ' }).mqttUrl, undefined);
    assert.equal(loadConfig({ PORT: '' }).port, 8080);
  });

  // Every error path: the ConfigError names the variable, and its one-line message starts with it.
  const invalid: [variable: string, value: string][] = [
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['HOST', 'bad host'],
    ['DATABASE_URL', 'mysql://x'],
    ['DATABASE_URL', 'file:'],
    ['DATABASE_URL', 'postgres://[bad'],
    ['MQTT_URL', 'not a url'],
    ['MQTT_URL', 'http://broker'],
    ['MQTT_PORT', 'x'],
    ['MQTT_RECEIVE_MAXIMUM', '0'],
    ['MQTT_RECEIVE_MAXIMUM', '65536'],
    ['REST_BASE_PATH', 'api/v1'],
    ['REST_BASE_PATH', '/api/v1/'],
    ['GRAPHQL_PATH', '/v1/graph ql'],
    ['ALERT_TIMEZONE', 'Mars/Olympus'],
    ['GATEWAY_TIMEOUT_S', '0'],
    ['DEVICE_TIMEOUT_S', 'soon'],
    ['ALERT_INTERVAL_S', '-5'],
    ['BATTERY_LOW_PERCENT', '150'],
    ['BATTERY_OK_PERCENT', '10'],
    ['INTEGRATION_TOPIC', 'thingdesk/{org}/data/#'],
    ['INTEGRATION_TOPIC', 'thingdesk/{org}/{unknown}'],
    ['INTEGRATION_TOPIC', 'feed/{group}/{tuid}'],
    ['INTEGRATION_TOPIC', 'thingdesk//{org}'],
    ['INTEGRATION_TOPIC', 'thingdesk/org-{org}/data'],
    ['LOG_LEVEL', 'loud'],
    ['RATE_LIMIT_PER_TOKEN', '0'],
    ['RATE_LIMIT_PER_ADDRESS', 'many'],
    ['INGEST_BATCH_SIZE', '0'],
    ['MQTT_CLIENT_ID', 'has space'],
    ['MQTT_CONSUMER_SLOTS', '0'],
    ['MQTT_SHARED_GROUP', 'a/b'],
    ['METRICS_PORT', '70000'],
    ['METRICS_HOST', 'bad host'],
    ['METRICS_TOKEN', 'short'],
    ['METRICS_TOKEN', 'has a space in the middle of it'],
    ['CORS_ORIGINS', 'dashboard.example.com'],
    ['CORS_ORIGINS', 'https://dashboard.example.com/app'],
    ['CORS_ORIGINS', 'https://a.example,*'],
    ['CORS_ORIGINS', 'ftp://files.example'],
    ['CORS_ORIGINS', 'https://user@a.example'],
    ['MQTT_AUTH', 'http-basic'],
    ['MAP_TILE_URL', 'https://tile.example.org/{z}/{x}.png'],
    ['MAP_TILE_URL', 'ftp://tile.example.org/{z}/{x}/{y}.png'],
    ['MAP_TILE_URL', 'tile.example.org/{z}/{x}/{y}.png'],
    ['MAP_TILE_URL', 'https://user:pw@tile.example.org/{z}/{x}/{y}.png'],
    ['MAP_LINK_URL', 'https://www.openstreetmap.org/?mlat={lat}'],
    ['MAP_LINK_URL', 'javascript:alert({lat},{lon})'],
    ['MAP_LINK_URL', 'www.openstreetmap.org/?mlat={lat}&mlon={lon}'],
    ['MAP_LINK_URL', 'https://user:pw@maps.example/?q={lat},{lon}'],
    ['COMMAND_ANSWER_TIMEOUT_S', '0'],
    ['COMMAND_ANSWER_TIMEOUT_S', '10m'],
    ['MQTT_LIVE_RELAY', 'maybe'],
    ['MQTT_AUTH_HTTP_SECRET', 'short'],
    ['MQTT_AUTH_SEALING_KEY', 'too-short'],
    ['HEAP_GROWING_PERCENT', '301'],
    ['HEAP_GROWING_PERCENT', '-1'],
    ['HEAP_GROWING_PERCENT', '50%'],
    ['SMTP_URL', 'mail.example.com:587'],
    ['SMTP_URL', 'https://mail.example.com'],
    ['SMTP_FROM', 'not an address'],
    ['NOTIFY_MIN_INTERVAL_S', '-1'],
    ['NOTIFY_DIGEST_THRESHOLD', '0'],
    ['NOTIFY_DIGEST_THRESHOLD', '2.5'],
    ['NOTIFY_DIGEST_WINDOW_S', '0'],
  ];
  for (const [variable, value] of invalid) {
    test(`${variable}=${JSON.stringify(value)} is refused naming ${variable}`, () => {
      assert.throws(
        () => loadConfig({ [variable]: value }),
        (error: unknown) =>
          error instanceof ConfigError &&
          error.variable === variable &&
          error.message.startsWith(`${variable}: `) &&
          !error.message.includes('\n'),
      );
    });
  }

  test('MQTT_AUTH=mosquitto-dynsec needs an external broker and a sealing key, each error naming its variable', () => {
    const key = 'k'.repeat(44);
    const named = (variable: string) => (error: unknown) => error instanceof ConfigError && error.variable === variable;
    assert.throws(() => loadConfig({ MQTT_AUTH: 'mosquitto-dynsec', MQTT_AUTH_SEALING_KEY: key }), named('MQTT_AUTH'));
    assert.throws(() => loadConfig({ MQTT_AUTH: 'mosquitto-dynsec', MQTT_URL: 'mqtt://admin:pw@broker' }), named('MQTT_AUTH_SEALING_KEY'));
    const config = loadConfig({ MQTT_AUTH: 'mosquitto-dynsec', MQTT_URL: 'mqtt://admin:pw@broker', MQTT_AUTH_SEALING_KEY: key });
    assert.equal(config.mqttAuth, 'mosquitto-dynsec');
    assert.equal(loadConfig({}).mqttAuth, 'none');
    assert.throws(() => loadConfig({ MQTT_AUTH: 'http', MQTT_URL: 'mqtt://admin:pw@broker' }), named('MQTT_AUTH_HTTP_SECRET'));
    assert.equal(
      loadConfig({ MQTT_AUTH: 'http', MQTT_URL: 'mqtt://admin:pw@broker', MQTT_AUTH_HTTP_SECRET: 's'.repeat(20) }).mqttAuth,
      'http',
    );
  });

  test('MAP_LINK_URL: unset shows no link; a template with {lat} and {lon} is kept as written', () => {
    assert.equal(loadConfig({}).mapLinkUrl, undefined);
    const template = 'https://www.openstreetmap.org/?mlat={lat}&mlon={lon}#map=17/{lat}/{lon}';
    assert.equal(loadConfig({ MAP_LINK_URL: template }).mapLinkUrl, template);
  });

  test('COMMAND_ANSWER_TIMEOUT_S: 600 unless set', () => {
    assert.equal(loadConfig({}).commandAnswerTimeoutS, 600);
    assert.equal(loadConfig({ COMMAND_ANSWER_TIMEOUT_S: '120' }).commandAnswerTimeoutS, 120);
  });

  test('MAP_TILE_URL: unset shows coordinates only; a template with {z}, {x} and {y} is kept as written', () => {
    assert.equal(loadConfig({}).mapTileUrl, undefined);
    const template = 'https://{s}.tile.example.org/{z}/{x}/{y}.png';
    assert.equal(loadConfig({ MAP_TILE_URL: template }).mapTileUrl, template);
  });

  test('CORS_ORIGINS: empty is none, a list is read as browsers send Origin, * stands alone', () => {
    assert.deepEqual(loadConfig({}).corsOrigins, []);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: ' https://Dash.Example.com/ , http://localhost:3000' }).corsOrigins, [
      'https://dash.example.com',
      'http://localhost:3000',
    ]);
    assert.deepEqual(loadConfig({ CORS_ORIGINS: 'https://a.example:443' }).corsOrigins, ['https://a.example']);
    assert.equal(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins, '*');
  });

  test('notifications: SMTP_URL unset by default, smtp:// and smtps:// kept, the noise-control defaults of SPEC 13', () => {
    const defaults = loadConfig({});
    assert.deepEqual(
      [defaults.smtpUrl, defaults.smtpFrom, defaults.notifyMinIntervalS, defaults.notifyDigestThreshold, defaults.notifyDigestWindowS],
      [undefined, 'thingdesk@localhost', 300, 20, 60],
    );
    const set = loadConfig({ SMTP_URL: 'smtps://u:p%40ss@smtp.example.com:465', SMTP_FROM: 'thingdesk <alerts@example.com>' });
    assert.deepEqual([set.smtpUrl, set.smtpFrom], ['smtps://u:p%40ss@smtp.example.com:465', 'thingdesk <alerts@example.com>']);
  });

  test('an SMTP password never appears in a configuration error', () => {
    assert.throws(
      () => loadConfig({ SMTP_URL: 'https://admin:hunter2@mail.example.com' }),
      (error: unknown) => error instanceof ConfigError && error.variable === 'SMTP_URL' && !error.message.includes('hunter2'),
    );
  });

  test('a database password never appears in a configuration error', () => {
    assert.throws(
      () => loadConfig({ DATABASE_URL: 'mysql://admin:hunter2@db/x' }),
      (error: unknown) => error instanceof ConfigError && !error.message.includes('hunter2'),
    );
  });

  test('the README documents every variable', () => {
    const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
    const missing = configVariables.filter((variable) => !readme.includes(`\`${variable}\``));
    assert.deepEqual(missing, []);
  });
});
