import { ConfigError } from '../config/config-error.js';
import { redactUrl } from '../config/parsers.js';
import { openDatabase, type Database, type OpenOptions } from '../store/database.js';

/**
 * Opens the store DATABASE_URL names and checks that it answers, or fails with a ConfigError naming DATABASE_URL
 * (the bare driver error, `connect ECONNREFUSED`, says neither what was opened nor what to change). Used by
 * `serve` and every CLI command that reads the store. The URL is shown without its password.
 */
export async function openStore(url: string, options: OpenOptions = {}): Promise<Database> {
  let database: Database | undefined;
  try {
    database = await openDatabase(url, options);
    await database.ping();
    return database;
  } catch (error) {
    await database?.close().catch(() => undefined);
    throw new ConfigError('DATABASE_URL', `cannot open ${redactUrl(url)}: ${(error as Error).message}`);
  }
}
