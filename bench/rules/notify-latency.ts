/**
 * `npm run bench:notify` (issue 35): the time from an uplink's acknowledgement to the e-mail its alert sends being
 * accepted by an SMTP server, at BENCH_ALERTS_PER_S (100) alerts a second for BENCH_SECONDS (20). The platform runs
 * in this process on the embedded path (SQLite, the embedded broker); the SMTP server (`smtp-server`) on loopback.
 * Each uplink is a new thing whose temperature opens the rule's alert, so every acknowledgement causes one e-mail.
 * NOTIFY_DIGEST_THRESHOLD is raised above the run's alert count: the figure is a single notification's way through
 * the outbox, the dispatcher and SMTP, not the digest (which waits for its window by design). Prints p50, p99 and the
 * share of e-mails that arrived.
 */
import { rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { startPlatform } from './rules-platform.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const perSecond = numberFromEnv('BENCH_ALERTS_PER_S', 100);
const seconds = numberFromEnv('BENCH_SECONDS', 20);
const total = perSecond * seconds;

/** When each TUID's e-mail was accepted (the subject ends with `on <TUID>`). */
const accepted = new Map<string, number>();
const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    let raw = '';
    stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    stream.on('end', () => {
      const tuid = /^Subject: .* on (N-\d+)\s*$/m.exec(raw)?.[1];
      if (tuid && !accepted.has(tuid)) accepted.set(tuid, performance.now());
      callback();
    });
  },
});
await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
const smtpPort = (smtp.server.address() as AddressInfo).port;

const platform = await startPlatform('embedded', {
  SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
  SMTP_FROM: 'thingdesk@bench.test',
  NOTIFY_DIGEST_THRESHOLD: String(total + 1),
});
const acknowledged = new Map<string, number>();
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
        .then(() => void acknowledged.set(tuid, performance.now())),
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
  await new Promise<void>((resolve) => smtp.close(() => resolve()));
}

const latencies = [...acknowledged].flatMap(([tuid, at]) => (accepted.has(tuid) ? [accepted.get(tuid)! - at] : [])).sort((a, b) => a - b);
const quantile = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? Number.NaN;
process.stdout.write(
  `bench:notify (embedded, SQLite; ${perSecond} alerts/s for ${seconds} s; acknowledgement to e-mail accepted by SMTP)\n` +
    `  e-mails arrived        ${accepted.size} of ${total}\n` +
    `  p50                    ${quantile(0.5).toFixed(0)} ms\n` +
    `  p99                    ${quantile(0.99).toFixed(0)} ms\n`,
);
process.exit(0);
