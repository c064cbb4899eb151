import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './platform-process.js';

const binary = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto'].find((path) => existsSync(path));

/** Why a test that needs its own Mosquitto cannot run here, or undefined. */
export const ownMosquittoSkipReason = binary
  ? undefined
  : 'needs the mosquitto binary (Debian package mosquitto) to start a broker of its own';

/**
 * A Mosquitto of the test's own, configured its own way, on a free port of 127.0.0.1 (the shared one on 1883 is
 * never reconfigured). Stopped by its pid.
 */
export class OwnMosquitto {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  /** `port`: a given one, e.g. to start a broker again where a stopped one listened. */
  static async start(settings: string[], options: { port?: number } = {}): Promise<OwnMosquitto> {
    const dir = mkdtempSync(join(tmpdir(), 'thingdesk-mosquitto-'));
    const port = options.port ?? (await freePort());
    const config = join(dir, 'mosquitto.conf');
    writeFileSync(config, [`listener ${port} 127.0.0.1`, 'allow_anonymous true', ...settings, ''].join('\n'));
    const child = spawn(binary!, ['-c', config], { stdio: 'ignore' });
    const broker = new OwnMosquitto(child, dir, port);
    const deadline = Date.now() + 10_000;
    while (!(await accepts(port))) {
      if (Date.now() > deadline || child.exitCode !== null) {
        await broker.stop();
        throw new Error(`mosquitto did not start on port ${port}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return broker;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      process.kill(this.child.pid!, 'SIGTERM');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
