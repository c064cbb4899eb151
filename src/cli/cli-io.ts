import type { Config } from '../config/config.js';
import { userInfo } from 'node:os';
import { withAuditScope, type AuditScope } from '../domain/audit/audit-context.js';
import { loadConfig } from '../config/config.js';
import { systemClock } from '../domain/clock.js';
import { AppError, validationFailed, type ErrorCode } from '../domain/errors.js';
import type { IdentityDeps } from '../domain/identity/identity-service.js';
import { openStore } from '../app/open-store.js';
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

/**
 * How a command's failures name what the operator types: `fields` maps a domain field to its flag (`organizationId`
 * to `--org`), `hints` names the flag or argument behind a failure of that code (NOT_FOUND: `--org`), so every error
 * line says what to change.
 */
export interface CliNames {
  fields?: Readonly<Record<string, string>>;
  hints?: Partial<Record<ErrorCode, string>>;
}

/**
 * Opens (or fails naming DATABASE_URL) and migrates the configured store, runs `work` with the identity
 * collaborators, and closes the store. A failure of `work` is restated in the command's terms (`names`).
 */
export async function withStore<T>(io: CliIo, work: (deps: IdentityDeps, config: Config) => Promise<T>, names: CliNames = {}): Promise<T> {
  const config = loadConfig(io.env);
  const database = await openStore(config.databaseUrl);
  try {
    await migrateToLatest(database);
    const sealMqttPassword = mqttPasswordSealer(config.mqttAuthSealingKey);
    // Every change a command makes is recorded as the CLI's, by the account that ran it (SPEC 14).
    return await withAuditScope(cliAuditScope(), () =>
      work({ store: createStore(database), clock: systemClock, ...(sealMqttPassword && { sealMqttPassword }) }, config),
    );
  } catch (error) {
    throw inCommandTerms(error, names);
  } finally {
    await database.close();
  }
}

function inCommandTerms(error: unknown, names: CliNames): unknown {
  if (!(error instanceof AppError)) return error;
  if (error.code === 'VALIDATION_FAILED' && names.fields) {
    const fields = names.fields;
    return validationFailed(error.errors.map((problem) => ({ field: fields[problem.field] ?? problem.field, message: problem.message })));
  }
  const hint = names.hints?.[error.code];
  return hint === undefined ? error : new AppError(error.code, `${error.message} (check ${hint})`, error.errors, error.meta);
}

/** The CLI as an audit actor: the operating-system account that ran it. */
function cliAuditScope(): AuditScope {
  let account = 'unknown';
  try {
    account = userInfo().username;
  } catch {
    // no passwd entry (a container's arbitrary uid): the account stays unknown
  }
  return { via: 'cli', requestId: null, address: null, actor: { type: 'cli', id: account, label: `thingdesk CLI (${account})` } };
}
