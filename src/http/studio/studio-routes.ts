import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from '../../observability/logger.js';
import { studioContentSecurityPolicy } from './studio-security.js';

/** Where the studio's pages live in the browser: `/` is its home, everything else under this prefix. */
export const studioPrefix = '/studio';

export interface StudioOptions {
  /** The built studio (`npm run build` writes it to dist/studio): index.html and the hashed assets. */
  directory: string;
  graphqlPath: string;
  restBasePath: string;
  mapTileUrl: string | undefined;
  /** MAP_LINK_URL and COMMAND_ANSWER_TIMEOUT_S: see StudioRuntimeConfig. */
  mapLinkUrl?: string;
  commandAnswerTimeoutS?: number;
  /** What the studio shows beside the data (SPEC section 16): see StudioRuntimeConfig. */
  alertTimeZone?: string;
  batteryLowPercent?: number;
  deviceTimeoutS?: number;
  /** MQTT_URL (credentials are dropped here), or undefined for the embedded broker on `mqttPort`. */
  mqttUrl?: string;
  mqttPort?: number;
  logger: Logger;
}

/** What the page reads at start-up (the `studio-config` JSON block of index.html): the paths this platform serves. */
export interface StudioRuntimeConfig {
  graphqlPath: string;
  restBasePath: string;
  mapTileUrl: string | null;
  /** MAP_LINK_URL: a link to the thing's location on a map service, `{lat}` and `{lon}` filled in; null shows none. */
  mapLinkUrl: string | null;
  /** COMMAND_ANSWER_TIMEOUT_S: a command still `sent` this long after it was sent is shown as `no answer`. */
  commandAnswerTimeoutS: number;
  /** ALERT_TIMEZONE: the studio shows times in it or in the browser's zone, as the user switches. */
  alertTimeZone: string;
  /** BATTERY_LOW_PERCENT and DEVICE_TIMEOUT_S: which rows of the things list are highlighted. */
  batteryLowPercent: number;
  deviceTimeoutS: number;
  /** Where gateways publish, for the first-run panel: `host:port` of MQTT_URL, or null for the embedded broker on `mqttPort` of the studio's host. */
  mqttBroker: string | null;
  mqttPort: number;
}

/**
 * The studio, the platform's web console (docs/studio.md): one HTML shell at `/` and at every path under
 * `/studio/` (the page routes itself, so a reload or a shared link opens the same view), and its files under
 * `/studio/assets/`. Nothing is fetched from elsewhere: the files were built from studio/ by `npm run build`.
 * A platform started from sources that were never built (`npm run dev`) answers the shell's paths with a page saying
 * how to build it; the APIs are unaffected.
 */
export async function registerStudio(http: FastifyInstance, options: StudioOptions): Promise<void> {
  const indexFile = join(options.directory, 'index.html');
  if (!existsSync(indexFile)) {
    options.logger.warn({ directory: options.directory }, 'the studio is not built (npm run build builds it); / answers a notice');
    const notBuilt = (_request: unknown, reply: FastifyReply) =>
      reply
        .code(503)
        .type('text/html; charset=utf-8')
        .headers(securityHeaders(options.mapTileUrl))
        .send('<!doctype html><title>thingdesk</title><p>The studio is not built: run <code>npm run build</code>, then restart.</p>');
    http.get('/', notBuilt);
    http.get(`${studioPrefix}/*`, notBuilt);
    return;
  }

  const runtimeConfig: StudioRuntimeConfig = {
    graphqlPath: options.graphqlPath,
    restBasePath: options.restBasePath,
    mapTileUrl: options.mapTileUrl ?? null,
    mapLinkUrl: options.mapLinkUrl ?? null,
    commandAnswerTimeoutS: options.commandAnswerTimeoutS ?? 600,
    alertTimeZone: options.alertTimeZone ?? 'UTC',
    batteryLowPercent: options.batteryLowPercent ?? 15,
    deviceTimeoutS: options.deviceTimeoutS ?? 3600,
    mqttBroker: options.mqttUrl ? brokerAddress(options.mqttUrl) : null,
    mqttPort: options.mqttPort ?? 1883,
  };
  // `<` escaped: a value can never close the script element it sits in.
  const configJson = JSON.stringify(runtimeConfig).replace(/</g, '\\u003c');
  const shell = readFileSync(indexFile, 'utf8').replace(
    /(<script type="application\/json" id="studio-config">)[^<]*(<\/script>)/,
    (_match, open: string, close: string) => `${open}${configJson}${close}`,
  );
  const sendShell = (_request: unknown, reply: FastifyReply) =>
    reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').headers(securityHeaders(options.mapTileUrl)).send(shell);

  // Every built file gets its own route (wildcard off), so `/studio/*` below is only what no file answers. Files under
  // assets/ have hashed names: one never changes under its name, so browsers keep it for a year.
  await http.register(fastifyStatic, {
    root: options.directory,
    prefix: `${studioPrefix}/`,
    decorateReply: false,
    wildcard: false,
    index: false,
    cacheControl: false,
    allowedPath: (path) => path !== '/index.html',
    setHeaders: (response, path) => {
      response.setHeader('cache-control', path.includes('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
      response.setHeader('x-content-type-options', 'nosniff');
    },
  });
  http.get('/', sendShell);
  // Any other studio path is a page of the single-page application, except under assets/: a file that is not there
  // is a 404, never the shell (a stale page asking for an old chunk must fail visibly, not parse HTML as JavaScript).
  http.get(`${studioPrefix}`, sendShell);
  http.get(`${studioPrefix}/*`, (request, reply) =>
    request.url.startsWith(`${studioPrefix}/assets/`) ? reply.callNotFound() : sendShell(request, reply),
  );
}

function securityHeaders(mapTileUrl: string | undefined): Record<string, string> {
  return {
    'content-security-policy': studioContentSecurityPolicy(mapTileUrl),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    // The installer scans QR codes with the camera; nothing else is granted.
    'permissions-policy': 'camera=(self), microphone=(), geolocation=()',
  };
}

/** `host:port` of a broker URL: never its user name or password, which are the platform's own credentials. */
export function brokerAddress(url: string): string {
  const parsed = new URL(url);
  const port = parsed.port || (parsed.protocol === 'mqtts:' || parsed.protocol === 'ssl:' ? '8883' : '1883');
  return `${parsed.protocol}//${parsed.hostname}:${port}`;
}
