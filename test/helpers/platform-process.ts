import { readFileSync } from 'node:fs';
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { testBootstrap, withTestSealingKey } from './test-app.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

/** `thingdesk serve` in a child process, for tests that kill it. */
export interface PlatformProcess {
  child: ChildProcess;
  httpPort: number;
  mqttPort: number | undefined;
  output(): string;
  /** Resolves with the exit code (or signal) once the process is gone. */
  exited: Promise<number | string | null>;
}

/** Starts the platform with the test bootstrap credentials and waits for its "listening" log line. */
export async function startPlatformProcess(env: Record<string, string>): Promise<PlatformProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve'], {
    env: withTestSealingKey({ ...process.env, ...testBootstrap, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  killedWithThisProcess(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const deadline = Date.now() + 90_000; // a start waits for tsx to compile the tree: minutes on a host busy with other work, never a hang
  for (;;) {
    const listening = /"httpPort":(\d+)(?:,"mqttPort":(\d+))?/.exec(output);
    if (listening)
      return {
        child,
        httpPort: Number(listening[1]),
        mqttPort: listening[2] ? Number(listening[2]) : undefined,
        output: () => output,
        exited,
      };
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`platform did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const running = new Set<ChildProcess>();
let killsOnExit = false;

/**
 * Kills `child` when this test process exits, if it still runs: a test that times out never reaches its `finally`,
 * and `--test-force-exit` ends the test file's process, not the platforms it started, which would go on holding
 * their ports and a share of the host for the rest of the run (seen: a platform left by a timed-out test still running
 * twelve minutes later).
 */
function killedWithThisProcess(child: ChildProcess): void {
  if (!killsOnExit) process.once('exit', () => running.forEach((c) => c.kill('SIGKILL')));
  killsOnExit = true;
  running.add(child);
  child.once('exit', () => running.delete(child));
}

/**
 * A TCP port free right now, for a process that must come back on the same port after a restart. It is taken
 * below the range the system hands out to outgoing connections (/proc/sys/net/ipv4/ip_local_port_range): a port
 * from that range, freed by a killed process, can meanwhile become the local port of another test's connection,
 * and the restart then fails with EADDRINUSE (seen in CI).
 */
export async function freePort(): Promise<number> {
  const lowestEphemeral = ephemeralPortsFrom();
  for (let attempt = 0; attempt < 100; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * (lowestEphemeral - 20_000));
    if (await listensOn(port)) return port;
  }
  throw new Error(`no free port between 20000 and ${lowestEphemeral}`);
}

function ephemeralPortsFrom(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    return Number.isInteger(low) && low > 21_000 ? low : 32_768;
  } catch {
    return 32_768;
  }
}

function listensOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
