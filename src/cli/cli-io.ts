import type { Config } from '../config/config.js';
import { loadConfig } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import type { IdentityDeps } from '../domain/identity/identity-service.js';
import { openDatabase } from '../store/database.js';
import { migrateToLatest } from '../store/migrate.js';
import { mqttPasswordSealer } from '../domain/identity/secrets.js';
import { createStore } from '../store/store.js';

/** What a CLI run reads and writes, passed in so tests run commands in-process with their own env and output. */
export interface CliIo {
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Prints a record readably (`key  value` lines) or as one JSON object with --json. */
export function printRecord(io: CliIo, title: string, record: Record<string, unknown>, json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(record)}\n`);
    return;
  }
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  const lines = Object.entries(record).map(([key, value]) => `  ${key.padEnd(width)}  ${value ?? ''}`);
  io.stdout(`${title}\n${lines.join('\n')}\n`);
}

/** Opens and migrates the configured store, runs `work` with the identity collaborators, and closes the store. */
export async function withStore<T>(io: CliIo, work: (deps: IdentityDeps, config: Config) => Promise<T>): Promise<T> {
  const config = loadConfig(io.env);
  const database = await openDatabase(config.databaseUrl);
  try {
    await migrateToLatest(database);
    const sealMqttPassword = mqttPasswordSealer(config.mqttAuthSealingKey);
    return await work({ store: createStore(database), clock: systemClock, ...(sealMqttPassword && { sealMqttPassword }) }, config);
  } finally {
    await database.close();
  }
}
