/**
 * `thingdesk serve` in its own process. The simulator runs in the bench process; on two cores, running both in
 * one process would make them share one event loop and distort both figures.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchSigningKeySealingKey } from '../lib/http-platform.js';
import type { PlatformEntry } from '../lib/node-entry.js';
import { spawnChild, waitForOutput, type ChildHandle } from '../lib/processes.js';
import { RssSampler } from '../lib/proc-stats.js';

/** Known first-start values, so the bench can connect its gateways (as test/helpers/test-app.ts does). */
export const benchBootstrap = {
  BOOTSTRAP_ORG: 'Bench',
  BOOTSTRAP_EMAIL: 'manager@bench.test',
  BOOTSTRAP_PASSWORD: 'bench-manager-password',
  BOOTSTRAP_CLIENT_ID: 'bench-client',
  BOOTSTRAP_CLIENT_SECRET: 'bench-client-secret-0123456789',
  BOOTSTRAP_MQTT_USERNAME: 'bench-gateway',
  BOOTSTRAP_MQTT_PASSWORD: 'bench-gateway-password',
} as const;

/** The organization id the platform derives from BOOTSTRAP_ORG. */
export const benchOrganizationId = 'bench';

export interface RunningPlatform {
  readonly process: ChildHandle;
  readonly httpPort: number;
  /** The embedded broker's port; undefined with an external broker. */
  readonly mqttPort: number | undefined;
  readonly metricsUrl: string;
  readonly rss: RssSampler;
  stop(): Promise<void>;
}

/**
 * Starts the platform with `env` on top of the bench defaults (ports 0, bootstrap credentials, a fresh SQLite
 * file unless DATABASE_URL is given) and waits for its "thingdesk listening" log line. The working directory is
 * a fresh temporary one, so a developer's .env in the repo cannot change what is measured.
 */
export async function spawnPlatform(
  entry: PlatformEntry,
  env: Record<string, string> = {},
): Promise<RunningPlatform & { workDir: string }> {
  const workDir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-'));
  const handle = spawnChild(
    'platform',
    process.execPath,
    [
      ...(process.env.BENCH_CPU_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROFILE_DIR}`] : []),
      ...entry.args,
      'serve',
    ],
    {
      cwd: workDir,
      env: {
        PATH: process.env.PATH,
        ...benchBootstrap,
        PORT: '0',
        HOST: '127.0.0.1',
        MQTT_PORT: '0',
        LOG_LEVEL: 'info',
        // Required on PostgreSQL (the relay and PostgreSQL variants), the same for every instance of a run.
        SIGNING_KEY_SEALING_KEY: benchSigningKeySealingKey,
        DATABASE_URL: `file:${join(workDir, 'bench.db')}`,
        ...env,
      },
    },
  );
  const line = (await waitForOutput(handle, /^.*"msg":"thingdesk listening".*$/m))[0];
  const httpPort = Number(/"httpPort":(\d+)/.exec(line)?.[1]);
  const mqttPort = /"mqttPort":(\d+)/.exec(line)?.[1];
  if (!(httpPort > 0)) throw new Error(`no httpPort in the platform's listening line: ${line}`);
  const rss = new RssSampler(handle.pid);
  return {
    process: handle,
    httpPort,
    mqttPort: mqttPort === undefined ? undefined : Number(mqttPort),
    metricsUrl: `http://127.0.0.1:${httpPort}/metrics`,
    rss,
    workDir,
    async stop() {
      rss.stop();
      await handle.stop(10_000);
    },
  };
}
