import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { brokerAddress } from '../../src/http/studio/studio-routes.js';

/** A built studio as Vite lays it out: the shell with its config block, hashed assets, files of public/. */
function fakeStudioBuild(): string {
  const directory = mkdtempSync(join(tmpdir(), 'thingdesk-studio-'));
  mkdirSync(join(directory, 'assets'));
  writeFileSync(
    join(directory, 'index.html'),
    '<!doctype html><html><head><script type="application/json" id="studio-config">{}</script>' +
      '<script type="module" src="/studio/assets/index-abc123.js"></script></head><body><div id="app"></div></body></html>',
  );
  writeFileSync(join(directory, 'assets/index-abc123.js'), 'console.log("studio");');
  writeFileSync(join(directory, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  return directory;
}

const configOf = (html: string) => JSON.parse(/<script type="application\/json" id="studio-config">([^<]*)<\/script>/.exec(html)![1]!);

describe('studio: served by the platform', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp(
      {
        MAP_TILE_URL: 'https://{s}.tile.example.org/{z}/{x}/{y}.png',
        GRAPHQL_PATH: '/gql',
        REST_BASE_PATH: '/prod/v1',
        ALERT_TIMEZONE: 'Europe/Helsinki',
        BATTERY_LOW_PERCENT: '20',
        DEVICE_TIMEOUT_S: '7200',
        MAP_LINK_URL: 'https://www.openstreetmap.org/?mlat={lat}&mlon={lon}',
        COMMAND_ANSWER_TIMEOUT_S: '900',
      },
      { studioDirectory: fakeStudioBuild() },
    );
  });
  after(() => server.stop());

  it('answers / with the shell, its config block filled with the paths this platform serves', async () => {
    const response = await fetch(server.url('/'));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.equal(response.headers.get('cache-control'), 'no-cache');
    const config = configOf(await response.text());
    assert.equal(typeof config.mqttPort, 'number');
    assert.deepEqual(
      { ...config, mqttPort: undefined },
      {
        graphqlPath: '/gql',
        restBasePath: '/prod/v1',
        mapTileUrl: 'https://{s}.tile.example.org/{z}/{x}/{y}.png',
        mapLinkUrl: 'https://www.openstreetmap.org/?mlat={lat}&mlon={lon}',
        commandAnswerTimeoutS: 900,
        alertTimeZone: 'Europe/Helsinki',
        batteryLowPercent: 20,
        deviceTimeoutS: 7200,
        mqttBroker: null,
        mqttPort: undefined,
      },
    );
  });

  it("names an external broker by scheme, host and port, never the platform's credentials", () => {
    assert.equal(brokerAddress('mqtt://platform:s3cret@broker.example:1884'), 'mqtt://broker.example:1884');
    assert.equal(brokerAddress('mqtts://platform:s3cret@broker.example'), 'mqtts://broker.example:8883');
  });

  it('sends a Content-Security-Policy that allows this origin, WebAssembly and the tile server, and nothing else', async () => {
    const response = await fetch(server.url('/studio/things/T-1'));
    const policy = response.headers.get('content-security-policy') ?? '';
    assert.match(policy, /default-src 'none'/);
    assert.match(policy, /script-src 'self' 'wasm-unsafe-eval'(;|$)/);
    assert.match(policy, /connect-src 'self'(;|$)/);
    assert.match(policy, /img-src 'self' data: blob: https:\/\/\*\.tile\.example\.org(;|$)/);
    assert.match(policy, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
  });

  it('answers every page path under /studio/ with the shell, so a reload or a shared link opens the same view', async () => {
    for (const path of ['/studio', '/studio/', '/studio/things', '/studio/things/ABC%2F1?q=x', '/studio/admin']) {
      const response = await fetch(server.url(path));
      assert.equal(response.status, 200, path);
      assert.match(await response.text(), /id="studio-config"/, path);
    }
  });

  it('serves hashed assets for a year and other files without caching; a missing asset is a 404, never the shell', async () => {
    const asset = await fetch(server.url('/studio/assets/index-abc123.js'));
    assert.equal(asset.status, 200);
    assert.match(asset.headers.get('content-type') ?? '', /javascript/);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.equal(await asset.text(), 'console.log("studio");');
    const icon = await fetch(server.url('/studio/favicon.svg'));
    assert.equal(icon.status, 200);
    assert.equal(icon.headers.get('cache-control'), 'no-cache');
    const missing = await fetch(server.url('/studio/assets/index-old999.js'));
    assert.equal(missing.status, 404);
    assert.equal(((await missing.json()) as { statusCode: number }).statusCode, 404);
  });

  it('does not serve the unfilled index.html as a file, nor touch the APIs and other paths', async () => {
    // The file as built has an empty config block: only the filled shell is ever served.
    assert.equal((await fetch(server.url('/studio/index.html'))).status, 404);
    const unknownApi = await fetch(server.url('/prod/v1/nothing-here'));
    assert.equal(unknownApi.status, 404);
    assert.match(unknownApi.headers.get('content-type') ?? '', /json/);
    const elsewhere = await fetch(server.url('/nothing-here'));
    assert.equal(elsewhere.status, 404);
    assert.match(elsewhere.headers.get('content-type') ?? '', /json/);
    assert.equal((await fetch(server.url('/healthz'))).status, 200);
  });

  it('refuses to write: POST on a studio path is 405, naming GET', async () => {
    const response = await fetch(server.url('/studio/things'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(response.status, 405);
  });
});

describe('studio: a platform whose studio was never built', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({}, { studioDirectory: mkdtempSync(join(tmpdir(), 'thingdesk-unbuilt-')) });
  });
  after(() => server.stop());

  it('answers the shell paths with a page saying how to build it; the APIs work', async () => {
    for (const path of ['/', '/studio/things']) {
      const response = await fetch(server.url(path));
      assert.equal(response.status, 503, path);
      assert.match(await response.text(), /npm run build/);
    }
    assert.equal((await fetch(server.url('/healthz'))).status, 200);
  });
});

describe('studio: the first start prints its address', () => {
  it('prints the studio URL next to the bootstrap credentials', async () => {
    const server = await startTestApp();
    try {
      const printed = server.printed.join('\n');
      assert.match(printed, new RegExp(`studio +http://127\\.0\\.0\\.1:${server.app.httpPort}/ `));
      assert.match(printed, /manager login/);
    } finally {
      await server.stop();
    }
  });
});
