/** `thingdesk simulate` end to end against an embedded broker: options, progress, report, signals, bad values. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { registerSimulateCommand } from '../../src/cli/commands/simulate-command.js';
import { AppError } from '../../src/domain/errors.js';
import { startTestBroker, UplinkCollector, type TestBroker } from './broker-helpers.js';

/** Runs `thingdesk simulate ...` in-process the way runCli does; returns what it printed and what it threw. */
async function runSimulate(args: string[], env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string; error?: unknown }> {
  let stdout = '';
  let stderr = '';
  const io = { env, stdout: (text: string) => (stdout += text), stderr: (text: string) => (stderr += text) };
  const program = new Command('thingdesk').exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  registerSimulateCommand(program, io);
  try {
    await program.parseAsync(['simulate', ...args], { from: 'user' });
    return { stdout, stderr };
  } catch (error) {
    return { stdout, stderr, error };
  }
}

describe('thingdesk simulate', () => {
  let broker: TestBroker;
  let port: string;
  before(async () => {
    broker = await startTestBroker();
    port = new URL(broker.url).port;
  });
  after(async () => {
    await broker.close();
  });

  test('--json prints one JSON report and no progress; the URL defaults to MQTT_PORT', async () => {
    const collector = await UplinkCollector.connect(broker.url, 'thingdesk/cli-org/up/+');
    try {
      const run = await runSimulate(
        [
          '--org',
          'cli-org',
          '--gateways',
          '2',
          '--devices',
          '4',
          '--rate',
          '0',
          '--batch',
          '5',
          '--messages',
          '40',
          '--tuid-prefix',
          'CLI',
          '--json',
        ],
        { MQTT_PORT: port },
      );
      assert.equal(run.error, undefined, String(run.error));
      assert.equal(run.stderr, '');
      const report = JSON.parse(run.stdout) as Record<string, unknown>;
      assert.equal(report['messagesAcked'], 40);
      assert.equal(report['publishes'], 8);
      assert.deepEqual(Object.keys(report['ackLatencyMs'] as object), ['p50', 'p99', 'max']);
      await collector.waitFor(() => collector.messages.length === 40);
      assert.ok(collector.messages.every((message) => String(message['tsmTuid']).startsWith('CLI-')));
    } finally {
      await collector.close();
    }
  });

  test('readable output: progress on stderr each second, the report on stdout', async () => {
    const run = await runSimulate(['--url', broker.url, '--org', 'cli-org', '--rate', '20', '--duration', '2', '--tuid-prefix', 'READ']);
    assert.equal(run.error, undefined, String(run.error));
    assert.match(run.stderr, /^simulate: connecting to mqtt:\/\/127\.0\.0\.1:\d+ \(from --url\)\n/);
    assert.match(run.stderr, /\nsimulate: 2 gateways, 10 devices connected to mqtt:\/\/127\.0\.0\.1:\d+ \(MQTT 5\)/);
    assert.match(run.stderr, /simulate: 1\.0 s {2}sent \d+ {2}acked \d+/);
    assert.match(run.stdout, /^Simulation report\n {2}gateways +2\n {2}devices +10\n/);
    assert.match(run.stdout, /\n {2}ackLatencyMaxMs +[\d.]+\n$/);
    const acked = Number(/messagesAcked +(\d+)/.exec(run.stdout)?.[1]);
    // Pacing bounds the count from above; a loaded machine may send fewer, never more.
    assert.ok(acked >= 1 && acked <= 45, `${acked} messages in 2 s at 20/s`);
  });

  test('SIGINT stops the run cleanly and the report is still printed', async () => {
    const listenersBefore = process.listenerCount('SIGINT');
    const running = runSimulate([
      '--url',
      broker.url,
      '--org',
      'cli-org',
      '--duration',
      '0',
      '--rate',
      '50',
      '--tuid-prefix',
      'SIG',
      '--json',
    ]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    process.emit('SIGINT', 'SIGINT');
    const run = await running;
    assert.equal(run.error, undefined, String(run.error));
    const report = JSON.parse(run.stdout) as { messagesAcked: number; durationS: number };
    assert.ok(report.messagesAcked > 0 && report.durationS < 2, JSON.stringify(report));
    assert.equal(process.listenerCount('SIGINT'), listenersBefore, 'the signal listeners are removed');
  });

  const badValues: [string[], string][] = [
    [['--gateways', '0'], '--gateways'],
    [['--devices', 'many'], '--devices'],
    [['--rate', '-1'], '--rate'],
    [['--batch', '2.5'], '--batch'],
    [['--duration', 'x'], '--duration'],
    [['--messages', '0'], '--messages'],
    [['--qos', '3'], '--qos'],
    [['--protocol-version', '3'], '--protocol-version'],
    [['--tuid-prefix', 'has space'], '--tuid-prefix'],
    [['--org', 'Not/Valid'], '--org'],
  ];
  for (const [args, option] of badValues) {
    test(`a bad ${option} is refused with an error naming it, before connecting`, async () => {
      const run = await runSimulate(['--url', 'mqtt://127.0.0.1:1', ...args]);
      assert.ok(run.error instanceof AppError, String(run.error));
      assert.equal(run.error.code, 'VALIDATION_FAILED');
      assert.equal(run.error.errors[0]?.field, option);
      assert.ok(run.error.message.startsWith(option), run.error.message);
    });
  }

  test('without --url it connects to the platform broker of the same environment, and says where and why', async () => {
    const run = await runSimulate(['--org', 'cli-org', '--messages', '5', '--rate', '0', '--tuid-prefix', 'ENV'], { MQTT_PORT: port });
    assert.equal(run.error, undefined, String(run.error));
    assert.match(run.stderr, new RegExp(`^simulate: connecting to mqtt://127\\.0\\.0\\.1:${port} \\(from MQTT_PORT\\)\\n`));
    // MQTT_URL (an external broker) wins over MQTT_PORT, as it does for the platform; its password is not printed.
    const external = await runSimulate(['--messages', '1', '--tuid-prefix', 'EXT'], {
      MQTT_PORT: '1',
      MQTT_URL: `mqtt://someone:hidden-secret@127.0.0.1:${port}`,
    });
    assert.equal(external.error, undefined, String(external.error));
    assert.match(external.stderr, /^simulate: connecting to mqtt:\/\/someone:\*+@127\.0\.0\.1:\d+ \(from MQTT_URL\)\n/);
    assert.ok(!external.stderr.includes('hidden-secret'));
  });

  test('without --url, MQTT_PORT=0 is refused naming --url, and a refused default URL names the variables to set', async () => {
    const zero = await runSimulate(['--json'], { MQTT_PORT: '0' });
    assert.ok(zero.error instanceof AppError, String(zero.error));
    assert.equal(zero.error.errors[0]?.field, '--url');
    const refused = await runSimulate(['--json'], { MQTT_PORT: '1' });
    assert.match(
      String((refused.error as Error).message),
      /^cannot connect to mqtt:\/\/127\.0\.0\.1:1: .*set --url, or MQTT_PORT \/ MQTT_URL/,
    );
  });

  test('an unreachable broker fails with a line naming the URL', async () => {
    const run = await runSimulate(['--url', 'mqtt://127.0.0.1:1', '--json']);
    assert.match(String((run.error as Error).message), /^cannot connect to mqtt:\/\/127\.0\.0\.1:1: /);
  });
});
