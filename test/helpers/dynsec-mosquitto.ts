import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OwnMosquitto, ownMosquittoSkipReason } from './own-mosquitto.js';

const plugin = ['/usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so', '/usr/lib/mosquitto_dynamic_security.so'].find((path) =>
  existsSync(path),
);
const control = ['/usr/bin/mosquitto_ctrl'].find((path) => existsSync(path));

/** Why a test that needs Mosquitto with dynamic security cannot run here, or undefined. */
export const dynsecSkipReason =
  ownMosquittoSkipReason ??
  (plugin && control
    ? undefined
    : 'needs Mosquitto dynamic security (mosquitto_dynamic_security.so and mosquitto_ctrl, Debian package mosquitto)');

export const dynsecAdmin = { username: 'thingdesk-admin', password: 'dynsec-admin-password' };

/**
 * A Mosquitto of the test's own with the dynamic security plugin, its state initialized as an operator would
 * (`mosquitto_ctrl dynsec init`, one admin), anonymous clients refused. `reset` starts it again on the same port
 * with its state deleted (a broker that lost its dynamic security file).
 */
export class DynsecMosquitto {
  private constructor(
    private broker: OwnMosquitto,
    private readonly dir: string,
  ) {}

  static async start(): Promise<DynsecMosquitto> {
    const dir = mkdtempSync(join(tmpdir(), 'thingdesk-dynsec-'));
    return new DynsecMosquitto(await OwnMosquitto.start(DynsecMosquitto.settings(dir)), dir);
  }

  get port(): number {
    return this.broker.port;
  }

  /** MQTT_URL for the platform: the dynamic security admin's credentials. */
  get adminUrl(): string {
    return `mqtt://${dynsecAdmin.username}:${dynsecAdmin.password}@127.0.0.1:${this.broker.port}`;
  }

  get url(): string {
    return this.broker.url;
  }

  async reset(): Promise<void> {
    await this.broker.stop();
    this.broker = await OwnMosquitto.start(DynsecMosquitto.settings(this.dir), { port: this.broker.port });
  }

  async stop(): Promise<void> {
    await this.broker.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }

  private static settings(dir: string): string[] {
    const file = join(dir, 'dynamic-security.json');
    rmSync(file, { force: true });
    execFileSync(control!, ['dynsec', 'init', file, dynsecAdmin.username, dynsecAdmin.password], { stdio: 'ignore' });
    // Started as root, Mosquitto drops to its own user, which must read and rewrite the plugin's file.
    chmodSync(dir, 0o777);
    chmodSync(file, 0o666);
    return [`plugin ${plugin}`, `plugin_opt_config_file ${file}`, 'allow_anonymous false'];
  }
}
