/**
 * docs/grafana/thingdesk.json loads as is (an importable dashboard with a Prometheus datasource input) and asks only
 * for metrics a running platform exports: every metric name in its expressions is in /metrics.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { forgetConsumerSessions } from '../helpers/consumer-sessions.js';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
}

const dashboard = JSON.parse(readFileSync(new URL('../../docs/grafana/thingdesk.json', import.meta.url), 'utf8')) as {
  __inputs: { name: string; type: string; pluginId: string }[];
  schemaVersion: number;
  uid: string;
  panels: Panel[];
  templating: { list: { name: string; query: unknown; datasource?: { uid?: string } }[] };
};

/** Metric names an expression reads (histogram series map to their family). */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\bthingdesk_[a-z0-9_]+/g)].map((match) => match[0].replace(/_(bucket|count|sum)$/, ''));
}

/** Every metric family a platform's /metrics declares (`# TYPE name type`). */
async function exportedFamilies(server: TestApp): Promise<Set<string>> {
  const text = await (await fetch(server.url('/metrics'))).text();
  return new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]!));
}

const queries = dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr ?? ''));
const used = new Set(queries.flatMap(metricNamesIn));
// Registered only with an external broker (MQTT_URL): checked against such a platform when TEST_MQTT_URL is set.
const externalBrokerOnly = new Set(['thingdesk_mqtt_consumer']);
const brokerUrl = process.env.TEST_MQTT_URL;

describe('the Grafana dashboard', () => {
  test('is an importable dashboard: current schema, a ${DS_PROMETHEUS} input used by every panel and query', () => {
    assert.ok(dashboard.schemaVersion >= 39, `schemaVersion ${dashboard.schemaVersion}`);
    assert.deepEqual(
      dashboard.__inputs.map(({ name, type, pluginId }) => [name, type, pluginId]),
      [['DS_PROMETHEUS', 'datasource', 'prometheus']],
    );
    assert.ok(dashboard.uid);
    const ids = dashboard.panels.map((panel) => panel.id);
    assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
    for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
      assert.ok((panel.targets ?? []).length > 0, `${panel.title} has a query`);
      assert.equal(panel.datasource?.uid, '${DS_PROMETHEUS}', panel.title);
      for (const target of panel.targets ?? []) {
        assert.equal(target.datasource?.uid, '${DS_PROMETHEUS}', panel.title);
        assert.ok(metricNamesIn(target.expr ?? '').length > 0, `${panel.title}: ${target.expr}`);
      }
    }
    for (const variable of dashboard.templating.list) assert.equal(variable.datasource?.uid, '${DS_PROMETHEUS}', variable.name);
  });

  test('the panels the operators asked for are there', () => {
    for (const name of [
      'thingdesk_ingest_received_total',
      'thingdesk_ingest_latency_seconds',
      'thingdesk_ingest_commit_seconds',
      'thingdesk_http_requests_total',
      'thingdesk_http_request_duration_seconds',
      'thingdesk_graphql_operations_total',
      'thingdesk_mqtt_connections',
      'thingdesk_graphql_live_subscriptions',
      'thingdesk_alerts_open',
      'thingdesk_store_query_duration_seconds',
      'thingdesk_login_failures_total',
    ]) {
      assert.ok(used.has(name), name);
    }
  });

  test('the name finder reads histogram series as their family', () => {
    assert.deepEqual(metricNamesIn('sum(rate(thingdesk_a_seconds_bucket[5m])) / thingdesk_b_total'), [
      'thingdesk_a_seconds',
      'thingdesk_b_total',
    ]);
  });

  test('every metric it uses is exported by a running platform (embedded broker)', async () => {
    const server = await startTestApp();
    try {
      const exported = await exportedFamilies(server);
      assert.deepEqual(
        [...used].filter((name) => !exported.has(name) && !externalBrokerOnly.has(name)),
        [],
      );
    } finally {
      await server.stop();
    }
  });

  test(
    'the external-broker metrics it uses are exported by a platform on an external broker',
    { skip: brokerUrl ? undefined : 'TEST_MQTT_URL is not set (e.g. mqtt://127.0.0.1:1883)' },
    async () => {
      const group = `grafana-${randomBytes(4).toString('hex')}`;
      const server = await startTestApp({
        MQTT_URL: brokerUrl!,
        MQTT_SHARED_GROUP: group,
        MQTT_CONSUMER_SLOTS: '1',
        MQTT_CLIENT_ID: group,
      });
      try {
        const exported = await exportedFamilies(server);
        assert.deepEqual(
          [...externalBrokerOnly].filter((name) => used.has(name) && !exported.has(name)),
          [],
        );
      } finally {
        await server.stop();
        await forgetConsumerSessions(brokerUrl!, group, 1);
      }
    },
  );
});
