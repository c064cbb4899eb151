import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { OperationHistogram } from './operation-histogram.js';

/**
 * The platform's Prometheus metrics, in a registry of its own (not prom-client's global one), so several
 * platform instances in one test process never share counters.
 */
export function createMetrics(build: { version: string } = { version: 'unknown' }) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'thingdesk_' });
  new Gauge({
    name: 'thingdesk_build_info',
    help: 'Always 1; the labels say which thingdesk version runs on which Node.js.',
    labelNames: ['version', 'node'] as const,
    registers: [registry],
  }).set({ version: build.version, node: process.version }, 1);
  return {
    registry,
    graphqlOperations: new Counter({
      name: 'thingdesk_graphql_operations_total',
      help: 'GraphQL operations, by type, first root field (the name bounded by the schema) and outcome: ok, error (answered with errors), refused (not parsed or not valid).',
      labelNames: ['type', 'field', 'outcome'] as const,
      registers: [registry],
    }),
    loginFailures: new Counter({
      name: 'thingdesk_login_failures_total',
      help: 'GraphQL sign-ins refused, by reason: invalid (wrong e-mail, password or organization), throttled (too many failures for the account or the address) or busy (no argon2 turn, 503).',
      labelNames: ['reason'] as const,
      registers: [registry],
    }),
    passwordHashing: new Counter({
      name: 'thingdesk_argon2_operations_total',
      help: 'argon2id hashes and verifies (sign-in, MQTT CONNECT, new users and credentials), by outcome: run, or refused (PASSWORD_HASH_QUEUE full, answered 503).',
      labelNames: ['outcome'] as const,
      registers: [registry],
    }),
    httpRequests: new Counter({
      name: 'thingdesk_http_requests_total',
      help: 'HTTP requests answered, by method, route and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'thingdesk_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route.',
      labelNames: ['route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    ingestReceived: counter(
      registry,
      'thingdesk_ingest_received_total',
      'Uplink messages received (each element of an array counts; those past UPLINK_MAX_MESSAGES count once, as their one dead letter).',
    ),
    ingestStored: counter(registry, 'thingdesk_ingest_stored_total', 'Uplink messages committed to the store.'),
    ingestDuplicates: counter(registry, 'thingdesk_ingest_duplicates_total', 'Redelivered uplink messages already stored, skipped.'),
    ingestFlagged: counter(registry, 'thingdesk_ingest_flagged_total', 'Stored uplink messages that broke a catalog rule of their id.'),
    ingestDeadLettered: counter(
      registry,
      'thingdesk_ingest_dead_lettered_total',
      'Uplink payloads or messages that could not be stored as messages.',
    ),
    ingestBatchSize: new Histogram({
      name: 'thingdesk_ingest_batch_size',
      help: 'Records written per ingest transaction.',
      buckets: [1, 5, 10, 50, 100, 250, 500, 1000, 2500],
      registers: [registry],
    }),
    ingestCommitSeconds: new Histogram({
      name: 'thingdesk_ingest_commit_seconds',
      help: 'Time of one ingest transaction.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    storeQuerySeconds: new OperationHistogram(
      'thingdesk_store_query_duration_seconds',
      'Time of one store call (its SQL statements, as the platform waits for them), by operation: the store module and method, e.g. things.get. Ingest transactions are thingdesk_ingest_commit_seconds.',
      'operation',
      [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5],
      registry,
    ),
    ingestLatencySeconds: new Histogram({
      name: 'thingdesk_ingest_latency_seconds',
      help: 'Longest wait of a payload in a batch, from receipt to commit.',
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
      registers: [registry],
    }),
    retentionExpired: new Counter({
      name: 'thingdesk_retention_expired_total',
      help: 'Rows removed by the retention sweep, by kind (messages, rollups, dead_letters, command_history).',
      labelNames: ['kind'],
      registers: [registry],
    }),
    rollupRowsCompacted: counter(
      registry,
      'thingdesk_rollup_compaction_rows_total',
      "Rows the retention sweep read to compact rollups into days (raw messages after things' rollup watermarks, hourly rows).",
    ),
    retentionPartitionsDropped: counter(
      registry,
      'thingdesk_retention_partitions_dropped_total',
      'PostgreSQL message partitions dropped whole by the retention sweep.',
    ),
    retentionSweepSeconds: new Histogram({
      name: 'thingdesk_retention_sweep_seconds',
      help: 'Time of one retention sweep.',
      buckets: [0.01, 0.1, 1, 10, 60, 300, 1800],
      registers: [registry],
    }),
  };
}

function counter(registry: Registry, name: string, help: string): Counter {
  return new Counter({ name, help, registers: [registry] });
}

export type Metrics = ReturnType<typeof createMetrics>;

/**
 * Figures read from the running parts when Prometheus scrapes: live GraphQL subscriptions, active alerts by type
 * and the embedded broker's connections by kind. Called once the parts exist (the composition root).
 */
export function observeRuntime(
  metrics: Metrics,
  read: { liveSubscriptions(): number; openAlerts(): Record<string, number>; mqttConnections(): Record<string, number> },
): void {
  new Gauge({
    name: 'thingdesk_graphql_live_subscriptions',
    help: 'Live GraphQL subscriptions (WebSocket and SSE) held on this instance.',
    registers: [metrics.registry],
    collect() {
      this.set(read.liveSubscriptions());
    },
  });
  observedGauge(
    metrics,
    'thingdesk_alerts_open',
    "Things with an active alert, by alert type, as this instance's alert engine knows them (every organization).",
    'type',
    read.openAlerts,
  );
  observedGauge(
    metrics,
    'thingdesk_mqtt_connections',
    'Clients connected to the embedded broker, by credential kind (gateway, integration); empty with an external broker.',
    'kind',
    read.mqttConnections,
  );
}

/** A gauge read when Prometheus scrapes: `read` gives the current figure of each value of its one label. */
export function observedGauge(metrics: Metrics, name: string, help: string, label: string, read: () => Record<string, number>): void {
  new Gauge({
    name,
    help,
    labelNames: [label],
    registers: [metrics.registry],
    collect() {
      for (const [value, figure] of Object.entries(read())) this.set({ [label]: value }, figure);
    },
  });
}

/** An info metric (Prometheus convention): always 1, the facts in its labels. */
export function infoGauge(metrics: Metrics, name: string, help: string, labels: Record<string, string>): void {
  new Gauge({ name, help, labelNames: Object.keys(labels), registers: [metrics.registry] }).set(labels, 1);
}
