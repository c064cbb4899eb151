/**
 * The broker-alone ceiling: the same fleet against a broker whose publish handler does nothing, in its own
 * process. Its acknowledged rate is what the platform could reach if ingest cost nothing.
 */
import { join } from 'node:path';
import type { FleetOptions } from '../../src/simulator/index.js';
import { repoRoot, tsxImportArgs } from '../lib/node-entry.js';
import { spawnChild, waitForOutput } from '../lib/processes.js';
import { RssSampler } from '../lib/proc-stats.js';
import { measureFleet, type FleetMeasurement, type WindowTiming } from './measure-fleet.js';

export interface BrokerCeiling extends FleetMeasurement {
  serverPeakRssMiB: number;
}

/** aedes with a no-op `authorizePublish` (see bare-broker.ts); no credentials needed. */
export async function measureAedesCeiling(fleet: Omit<FleetOptions, 'url'>, timing: WindowTiming): Promise<BrokerCeiling> {
  const broker = spawnChild('bare aedes broker', process.execPath, [...tsxImportArgs, join(repoRoot, 'bench/ingest/bare-broker.ts')], {
    env: { PATH: process.env.PATH },
  });
  try {
    const port = Number((await waitForOutput(broker, /"bareBrokerPort":(\d+)/))[1]);
    const rss = new RssSampler(broker.pid);
    const measurement = await measureFleet(
      { ...fleet, url: `mqtt://127.0.0.1:${port}`, username: undefined, password: undefined },
      { serverPid: broker.pid },
      timing,
    );
    return { ...measurement, serverPeakRssMiB: rss.stop() };
  } finally {
    await broker.stop();
  }
}

/** An external broker with consumers that acknowledge at once (see null-consumer.ts), in their own process. */
export async function measureExternalCeiling(fleet: FleetOptions, consumers: number, timing: WindowTiming): Promise<BrokerCeiling> {
  const consumer = spawnChild(
    'null consumer',
    process.execPath,
    [
      ...tsxImportArgs,
      join(repoRoot, 'bench/ingest/null-consumer.ts'),
      fleet.url,
      `thingdesk/${fleet.organizationId}/up/+`,
      String(consumers),
    ],
    { env: { PATH: process.env.PATH } },
  );
  try {
    await waitForOutput(consumer, /"nullConsumerReady":true/);
    const rss = new RssSampler(consumer.pid);
    const measurement = await measureFleet(fleet, { serverPid: consumer.pid }, timing);
    return { ...measurement, serverPeakRssMiB: rss.stop() };
  } finally {
    await consumer.stop();
  }
}
