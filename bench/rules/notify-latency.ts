/**
 * `npm run bench:notify` (issue 35): the time from an uplink's acknowledgement to the e-mail its alert sends being
 * accepted by an SMTP server, at BENCH_ALERTS_PER_S (100) alerts a second for BENCH_SECONDS (20). The platform runs
 * in this process on the embedded path (SQLite, the embedded broker); the SMTP server (`smtp-server`) on loopback in
 * its own process (bench/rules/smtp-sink.ts), so that it does not share the platform's event loop.
 * Each uplink is a new thing whose temperature opens the rule's alert, so every acknowledgement causes one e-mail.
 * NOTIFY_DIGEST_THRESHOLD is raised above the run's alert count: the figure is a single notification's way through
 * the outbox, the dispatcher and SMTP, not the digest (which waits for its window by design). Prints p50, p99 and the
 * share of e-mails that arrived.
 */
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { startPlatform } from './rules-platform.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const perSecond = numberFromEnv('BENCH_ALERTS_PER_S', 100);
const seconds = numberFromEnv('BENCH_SECONDS', 20);
const total = perSecond * seconds;

/** When each TUID's e-mail was accepted (epoch ms), as the sink prints it. */
const accepted = new Map<string, number>();
const sink = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'smtp-sink.ts')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const smtpPort = await new Promise<number>((resolve, reject) => {
  sink.once('exit', (code) => reject(new Error(`the SMTP sink exited (${code})`)));
  createInterface({ input: sink.stdout }).on('line', (line) => {
    const [first, second] = line.split(' ');
    if (first === 'port') resolve(Number(second));
    else if (first && !accepted.has(first)) accepted.set(first, Number(second));
  });
});

const platform = await startPlatform('embedded', {
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'thingdesk@bench.test',
  NOTIFY_DIGEST_THRESHOLD: String(total + 1),
});
const acknowledged = new Map<string, number>();
let startedAt = Date.now();
try {
  const channel = (await platform.api('/notification-channels', { name: 'bench', type: 'email', to: ['ops@bench.test'] })) as {
    id: string;
  };
  await platform.api('/alert-rules', {
    name: 'too warm',
    tsm_id: 12100,
    field: 'temp',
    op: 'gt',
    threshold: 30,
    severity: 'critical',
    channels: [channel.id],
  });
  // The channel and rule views reload on change: let them before the first uplink.
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  const started = performance.now();
  startedAt = Date.now();
  const sends: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / perSecond;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const tuid = `N-${i}`;
    const uplink = [{ tsmId: 12100, tsmEv: 10, tsmTs: 1_700_000_000 + i, tsmTuid: tuid, temp: 40 }];
    sends.push(
      platform.client
        .publishAsync('thingdesk/bench/up/GW-1', JSON.stringify(uplink), { qos: 1 })
        .then(() => void acknowledged.set(tuid, Date.now())),
    );
  }
  await Promise.all(sends);
  const deadline = performance.now() + 30_000;
  while (accepted.size < total && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
} finally {
  await platform.client.endAsync();
  await platform.app.stop();
  await platform.drop();
  rmSync(platform.dir, { recursive: true, force: true });
  sink.removeAllListeners('exit');
  sink.kill('SIGTERM');
}

const latencies = [...acknowledged].flatMap(([tuid, at]) => (accepted.has(tuid) ? [accepted.get(tuid)! - at] : [])).sort((a, b) => a - b);
const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
const span = (times: Iterable<number>) => {
  const all = [...times];
  return `${(Math.min(...all) - startedAt).toFixed(0)} to ${(Math.max(...all) - startedAt).toFixed(0)} ms after the first publish`;
};
process.stdout.write(
  `bench:notify (embedded, SQLite; ${perSecond} alerts/s for ${seconds} s; acknowledgement to e-mail accepted by SMTP)\n` +
    `  e-mails arrived        ${accepted.size} of ${total}\n` +
    `  p50                    ${quantile(0.5).toFixed(0)} ms\n` +
    `  p99                    ${quantile(0.99).toFixed(0)} ms\n` +
    `  acknowledgements       ${span(acknowledged.values())}\n` +
    `  e-mails accepted       ${span(accepted.values())}\n`,
);
process.exit(0);
