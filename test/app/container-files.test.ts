/**
 * The container files (Dockerfile, .dockerignore, compose.yaml, deploy/mosquitto) hold together with the code: no
 * container engine runs on this machine, so their structure is checked here instead of a build. compose.yaml is
 * parsed with `yaml`; its platform variables must be ones src/config reads and load into a valid configuration.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { configVariables, loadConfig } from '../../src/config/config.js';
import { startTestApp } from '../helpers/test-app.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

interface Service {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  healthcheck?: { test?: string[] };
  depends_on?: Record<string, { condition?: string }>;
  volumes?: string[];
  ports?: string[];
}
const compose = parse(read('compose.yaml')) as { services: Record<string, Service>; volumes?: Record<string, unknown> };

/** Compose's interpolation with sample values: `${X:?message}` and `${X}` take `values[X]`, `${X:-default}` the default. */
function interpolate(text: string, values: Record<string, string>): string {
  return text
    .replace(/\$\{([A-Z_]+)(?::([?-])([^}]*))?\}/g, (_whole, name: string, kind?: string, rest?: string) => {
      if (values[name] !== undefined) return values[name]!;
      if (kind === '-') return rest ?? '';
      throw new Error(`compose.yaml needs ${name}`);
    })
    .replace(/\$\$/g, '$');
}

describe('compose.yaml', () => {
  const { thingdesk, postgres, mosquitto } = compose.services;

  test('has the platform, PostgreSQL and Mosquitto, each with a health check; the platform waits for both to be healthy', () => {
    assert.deepEqual(Object.keys(compose.services).sort(), ['mosquitto', 'postgres', 'thingdesk']);
    for (const [name, service] of Object.entries(compose.services)) {
      assert.ok((service.healthcheck?.test ?? []).length > 1, `${name} has a health check`);
    }
    assert.match(thingdesk!.healthcheck!.test!.join(' '), /\/healthz/);
    assert.equal(thingdesk!.depends_on?.postgres?.condition, 'service_healthy');
    assert.equal(thingdesk!.depends_on?.mosquitto?.condition, 'service_healthy');
    assert.ok(thingdesk!.build !== undefined, 'the platform is built from this Dockerfile');
  });

  test("the platform's variables are all read by src/config and make a valid configuration on PostgreSQL and Mosquitto", () => {
    const environment = thingdesk!.environment ?? {};
    assert.deepEqual(
      Object.keys(environment).filter((name) => !configVariables.includes(name)),
      [],
    );
    const env = Object.fromEntries(
      Object.entries(environment).map(([name, value]) => [
        name,
        interpolate(String(value), {
          POSTGRES_PASSWORD: 'pg-secret',
          MQTT_PLATFORM_PASSWORD: 'mqtt-secret',
          SIGNING_KEY_SEALING_KEY: 'c2lnbmluZy1rZXktc2VhbGluZy1rZXktb2YtY29tcG9zZQ==',
        }),
      ]),
    );
    const config = loadConfig(env);
    assert.equal(config.databaseUrl, 'postgres://thingdesk:pg-secret@postgres:5432/thingdesk');
    assert.equal(config.mqttUrl, 'mqtt://thingdesk-platform:mqtt-secret@mosquitto:1883');
    assert.equal(config.metricsPort, 9464);
    assert.equal(config.signingKeySealingKey, 'c2lnbmluZy1rZXktc2VhbGluZy1rZXktb2YtY29tcG9zZQ==', 'required on PostgreSQL');
    // The hosts named are the services of this file; the PostgreSQL user and database are the ones it creates.
    assert.equal(new URL(config.databaseUrl).hostname in compose.services, true);
    assert.equal(new URL(config.mqttUrl!).hostname in compose.services, true);
    assert.equal(postgres!.environment?.POSTGRES_USER, 'thingdesk');
    assert.equal(postgres!.environment?.POSTGRES_DB, 'thingdesk');
  });

  test('a missing secret stops compose with a message (the interpolation helper refuses it too)', () => {
    assert.throws(() => interpolate(String(thingdesk!.environment?.DATABASE_URL), {}), /needs POSTGRES_PASSWORD/);
    assert.match(read('compose.yaml'), /\$\{POSTGRES_PASSWORD:\?[^}]+\}/);
    assert.throws(() => interpolate(String(thingdesk!.environment?.SIGNING_KEY_SEALING_KEY), {}), /needs SIGNING_KEY_SEALING_KEY/);
  });

  test('Mosquitto is configured as docs/mqtt.md says: persistence, unbounded queues, shared subscriptions, the ACL', () => {
    const mounted = (mosquitto!.volumes ?? []).map((volume) => volume.split(':'));
    const conf = mounted.find(([, target]) => target === '/mosquitto/config/mosquitto.conf');
    const acl = mounted.find(([, target]) => target === '/mosquitto/config/acl');
    assert.ok(conf && acl, 'config and ACL are mounted');
    const text = read(conf[0]!.replace(/^\.\//, ''));
    const settings = new Map(
      text
        .split('\n')
        .filter((line) => line.trim() !== '' && !line.startsWith('#'))
        .map((line) => [line.split(' ')[0]!, line.slice(line.indexOf(' ') + 1)]),
    );
    assert.equal(settings.get('persistence'), 'true');
    assert.equal(settings.get('persistence_location'), '/mosquitto/data/');
    assert.ok(
      mounted.some(([, target]) => target === '/mosquitto/data'),
      'the data directory is a volume',
    );
    assert.equal(settings.get('max_queued_messages'), '0');
    assert.equal(settings.get('max_queued_bytes'), '0');
    assert.equal(settings.get('allow_anonymous'), 'false');
    assert.equal(settings.get('acl_file'), '/mosquitto/config/acl');
    assert.doesNotMatch(text, /^shared_subscriptions? false/m);
    // The platform user's rules are docs/mqtt.md's, line for line.
    const platformRules = (source: string) =>
      /user thingdesk-platform\n((?:(?:topic|#) .*\n)+)/
        .exec(source)![1]!
        .split('\n')
        .filter((line) => line.startsWith('topic ') && !line.includes('$SYS'));
    assert.deepEqual(platformRules(read(acl[0]!.replace(/^\.\//, ''))), platformRules(read('docs/mqtt.md')));
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const runs = instructions.filter((line) => line.startsWith('RUN ')).join('\n');

  test('builds with the commands CI runs, and the image holds production dependencies only', () => {
    const ci = read('.ci/run');
    assert.match(ci, /^npm ci\b/m);
    assert.match(ci, /^npm run build$/m);
    assert.match(runs, /RUN npm ci --no-audit --no-fund/);
    assert.match(runs, /RUN npm run build/);
    assert.match(runs, /RUN npm ci --omit=dev/);
    assert.ok(instructions.filter((line) => line.startsWith('FROM ')).length >= 2, 'multi-stage');
    assert.match(dockerfile, /^COPY --from=deps \/app\/node_modules/m);
    assert.match(dockerfile, /^COPY --from=build \/app\/dist/m);
  });

  test('runs as a non-root user, with a data volume and a health check on the real health route', async () => {
    const joined = instructions.join('\n');
    const last = joined.slice(joined.lastIndexOf('\nFROM '));
    assert.match(last, /^USER node$/m);
    assert.match(last, /^VOLUME \["\/app\/data"\]$/m);
    assert.match(last, /^HEALTHCHECK .*\/healthz/m);
    const server = await startTestApp();
    try {
      assert.equal((await fetch(server.url('/healthz'))).status, 200);
    } finally {
      await server.stop();
    }
  });

  test('.dockerignore lets in exactly what the build copies, and never .env or data', () => {
    const allowed = read('.dockerignore')
      .split('\n')
      .filter((line) => line.startsWith('!'))
      .map((line) => line.slice(1).replace(/\/$/, ''));
    const copied = [...dockerfile.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((match) => match[1]!.split(' '));
    assert.deepEqual(
      [...new Set(copied)].filter((path) => !allowed.includes(path.replace(/\/$/, ''))),
      [],
    );
    assert.match(read('.dockerignore'), /^\*$/m);
    assert.ok(!allowed.some((path) => path.startsWith('.env') || path.startsWith('data')));
  });
});
