/**
 * The legitimate publisher whose latency the soak reports: one gateway of its own sending one valid uplink every
 * `intervalMs` at QoS 1, each publish timed from send to PUBACK (which the platform sends after the commit).
 * The simulated fleet keeps the load; the probe measures it, at a rate low enough not to change it.
 */
import { connectAsync } from 'mqtt';
import { sleep } from '../lib/processes.js';

export interface PublishProbe {
  errors: number;
  stop(): Promise<void>;
}

export async function startPublishProbe(options: {
  url: string;
  username: string;
  password: string;
  organizationId: string;
  intervalMs: number;
  record(milliseconds: number): void;
}): Promise<PublishProbe> {
  const client = await connectAsync(options.url, {
    username: options.username,
    password: options.password,
    protocolVersion: 5,
    reconnectPeriod: 1000,
  });
  const topic = `thingdesk/${options.organizationId}/up/PROBE-GW`;
  let running = true;
  const probe: PublishProbe = { errors: 0, stop: async () => undefined };
  const loop = (async () => {
    let sequence = 0;
    while (running) {
      // A hundred probe devices in turn, so no message repeats another's (TUID, tsmTs) and each is really written.
      const tuid = `PROBE-${String(sequence++ % 100).padStart(4, '0')}`;
      const message = {
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: Math.floor(Date.now() / 1000),
        tsmTuid: tuid,
        tsmGw: 'PROBE-GW',
        temp: 21 + (sequence % 10) / 10,
      };
      const sentAt = performance.now();
      try {
        await client.publishAsync(topic, JSON.stringify([message]), { qos: 1 });
        options.record(performance.now() - sentAt);
      } catch {
        probe.errors += 1;
      }
      await sleep(options.intervalMs);
    }
  })();
  probe.stop = async () => {
    running = false;
    await loop;
    await client.endAsync();
  };
  return probe;
}
