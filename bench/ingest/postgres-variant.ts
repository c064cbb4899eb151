/**
 * The PostgreSQL + external broker (Mosquitto) variant. It runs only when BENCH_DATABASE_URL names a PostgreSQL
 * server and a broker can be had: BENCH_MQTT_URL when set, else a Mosquitto of the bench's own on a free port with
 * the settings docs/mqtt.md gives for losing nothing (no per-session queue limit), else the one on 127.0.0.1:1883,
 * whose queue limits (Mosquitto's default: 1000 per session) may drop what the bench then reports as lost. Shared
 * services get only what is unique to this run, removed afterwards: a scratch schema, an organization id for the
 * fleet's topics, and the platform's persistent consumer sessions (which would otherwise keep taking a share of
 * `$share/thingdesk/...` messages from anyone else's platform for a day).
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { connectAsync } from 'mqtt';
import pg from 'pg';
import { OwnMosquitto, ownMosquittoSkipReason } from '../../test/helpers/own-mosquitto.js';
import { withClient } from '../lib/postgres-client.js';

/** The broker settings docs/mqtt.md asks for so that a backlog is never dropped (the bench's own Mosquitto). */
export const losslessMosquittoSettings = ['max_queued_messages 0', 'max_inflight_messages 0'];

export interface ExternalTarget {
  databaseUrl: string;
  mqttUrl: string;
  /** Which broker that is, for the report. */
  brokerNote: string;
  organizationId: string;
  /** BOOTSTRAP_ORG whose derived id is `organizationId`: the platform must own the organization it ingests for. */
  bootstrapOrg: string;
  mqttClientId: string;
  /** The deployment's shared subscription group: its consumer sessions are `{sharedGroup}-slot-{n}`. */
  sharedGroup: string;
  /** Consumer slots (MQTT_CONSUMER_SLOTS). */
  consumers: number;
  countRows(): Promise<number>;
  /** A second, empty schema on the same server (dropped by cleanup), for the store-alone ceiling. */
  storeCeilingUrl: string;
  /** Ends the platform's persistent consumer sessions, so the next platform starts without a backlog. */
  endSessions(): Promise<void>;
  /** Drops the scratch schema and the platform's broker sessions. Safe to call twice. */
  cleanup(): Promise<void>;
}

/** The platform's settings for `target`: its store, its broker and the deployment's consumer sessions. */
export function externalPlatformEnv(target: ExternalTarget): Record<string, string> {
  return {
    DATABASE_URL: target.databaseUrl,
    MQTT_URL: target.mqttUrl,
    MQTT_CLIENT_ID: target.mqttClientId,
    MQTT_SHARED_GROUP: target.sharedGroup,
    MQTT_CONSUMER_SLOTS: String(target.consumers),
    BOOTSTRAP_ORG: target.bootstrapOrg,
  };
}

/** Why the variant cannot run here, or undefined when it can. */
export async function externalSkipReason(): Promise<string | undefined> {
  if (!process.env.BENCH_DATABASE_URL) return 'BENCH_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)';
  if (!/^postgres(ql)?:\/\//.test(process.env.BENCH_DATABASE_URL)) return 'BENCH_DATABASE_URL is not a postgres:// URL';
  if (!process.env.BENCH_MQTT_URL && ownMosquittoSkipReason === undefined) return undefined;
  const url = new URL(process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883');
  const answers = await new Promise<boolean>((resolve) => {
    const socket = connect(Number(url.port || 1883), url.hostname, () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
    socket.setTimeout(2000, () => (socket.destroy(), resolve(false)));
  });
  return answers ? undefined : `no MQTT broker answers at ${url.host} (set BENCH_MQTT_URL)`;
}

export async function prepareExternalTarget(): Promise<ExternalTarget> {
  const suffix = randomBytes(4).toString('hex');
  const base = process.env.BENCH_DATABASE_URL!;
  const schema = `bench_${suffix}`;
  await withClient(base, (client) => client.query(`create schema ${schema}`));
  const scoped = new URL(base);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  const ceilingSchema = `${schema}_store`;
  await withClient(base, (client) => client.query(`create schema ${ceilingSchema}`));
  const ceilingUrl = new URL(base);
  ceilingUrl.searchParams.set('options', `-c search_path=${ceilingSchema}`);
  const ownBroker =
    !process.env.BENCH_MQTT_URL && ownMosquittoSkipReason === undefined ? await OwnMosquitto.start(losslessMosquittoSettings) : undefined;
  const mqttUrl = ownBroker?.url ?? (process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883');
  const brokerNote = ownBroker
    ? `the bench's own Mosquitto (${losslessMosquittoSettings.join(', ')})`
    : `${mqttUrl} (shared: its queue limits, 1000 messages per session by default on Mosquitto, may drop a backlog)`;
  const mqttClientId = `thingdesk-bench-${suffix}`;
  const sharedGroup = `bench-${suffix}`;
  const consumers = 4;
  const counter = new pg.Client({ connectionString: scoped.toString() });
  await counter.connect();
  let cleaned = false;
  const endSessions = async () => {
    // A clean-start connection with the same client id ends the persistent session and its queue.
    for (let i = 0; i < consumers; i++) {
      const client = await connectAsync(mqttUrl, {
        clientId: `${sharedGroup}-slot-${i}`,
        protocolVersion: 5,
        clean: true,
        reconnectPeriod: 0,
      }).catch(() => undefined);
      await client?.endAsync(true).catch(() => undefined);
    }
  };
  return {
    databaseUrl: scoped.toString(),
    storeCeilingUrl: ceilingUrl.toString(),
    mqttUrl,
    brokerNote,
    organizationId: `bench-${suffix}`,
    bootstrapOrg: `Bench ${suffix}`,
    mqttClientId,
    sharedGroup,
    consumers,
    async countRows() {
      const result = await counter.query<{ rows: string }>('select count(*) as rows from messages');
      return Number(result.rows[0]?.rows ?? 0);
    },
    endSessions,
    async cleanup() {
      if (cleaned) return;
      cleaned = true;
      await counter.end().catch(() => undefined);
      await withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`)).catch(() => undefined);
      await withClient(base, (client) => client.query(`drop schema if exists ${ceilingSchema} cascade`)).catch(() => undefined);
      await endSessions();
      await ownBroker?.stop();
    },
  };
}
