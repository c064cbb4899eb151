import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { testBootstrap } from './test-app.js';

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
    env: { ...process.env, ...testBootstrap, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | string | null>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  const deadline = Date.now() + 30_000;
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

/** A TCP port free right now (for a process that must come back on the same port after a restart). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}
