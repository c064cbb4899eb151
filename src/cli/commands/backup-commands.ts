import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { backupSqliteStore, restoreSqliteStore, type SqliteCopy, type SqliteCopyRefusal } from '../../store/sqlite-backup.js';
import { printRecord, type CliIo } from '../cli-io.js';

/** How PostgreSQL is backed up instead: its own tools (docs/operations.md, Backup and restore). */
const postgresWay =
  'DATABASE_URL names a PostgreSQL store: back it up and restore it with PostgreSQL tools, not thingdesk. ' +
  'Small stores: pg_dump --format=custom and pg_restore; point-in-time recovery: pg_basebackup with WAL archiving. ' +
  'See docs/operations.md, Backup and restore.';

/**
 * `thingdesk backup FILE` and `thingdesk restore FILE`: an online copy of the SQLite store DATABASE_URL names, taken
 * while the platform runs, and its way back into an empty store. On PostgreSQL both refuse (exit 1) and say which
 * PostgreSQL tools to use, so a script never mistakes the message for a backup.
 */
export function registerBackupCommands(program: Command, io: CliIo): void {
  program
    .command('backup')
    .description('copy the SQLite store (DATABASE_URL) to a new FILE while the platform runs (SQLite online backup)')
    .argument('<file>', 'where to write the copy; must not exist')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      const storePath = sqliteStorePath(io, 'backup');
      const started = Date.now();
      const result = await backupSqliteStore(storePath, file);
      if ('refused' in result) throw new Error(refusalMessage(result));
      printCopy(io, 'Backed up the store', { store: storePath, backup: file }, result, started, !!options.json);
    });
  program
    .command('restore')
    .description('copy a backup FILE into the SQLite store DATABASE_URL names, which must be empty (stop the platform first)')
    .argument('<file>', 'a file written by thingdesk backup')
    .option('--json', 'print the result as JSON')
    .action(async (file: string, options: { json?: boolean }) => {
      const storePath = sqliteStorePath(io, 'restore');
      const started = Date.now();
      const result = await restoreSqliteStore(file, storePath);
      if ('refused' in result) throw new Error(refusalMessage(result));
      printCopy(io, 'Restored the store', { backup: file, store: storePath }, result, started, !!options.json);
    });
}

/** The SQLite file DATABASE_URL names; refuses PostgreSQL (the PostgreSQL way) and an in-memory store. */
function sqliteStorePath(io: CliIo, command: string): string {
  const url = loadConfig(io.env).databaseUrl;
  if (!url.startsWith('file:')) throw new Error(`${command}: ${postgresWay}`);
  const path = url.slice('file:'.length);
  if (path === ':memory:') throw new Error(`${command}: DATABASE_URL names an in-memory SQLite store, which has no file to copy.`);
  return path;
}

function refusalMessage(refusal: SqliteCopyRefusal): string {
  switch (refusal.refused) {
    case 'no-source':
      return `${refusal.path} does not exist.`;
    case 'not-a-store':
      return `${refusal.path} is not a thingdesk SQLite store: ${refusal.reason}`;
    case 'destination-exists':
      return `${refusal.path} already exists; a backup never overwrites a file. Choose a new name.`;
    case 'destination-symlink':
      return `${refusal.path} is a symbolic link; a backup never writes through one (it could point anywhere). Choose a new name.`;
    case 'destination-not-empty':
      return (
        `the store DATABASE_URL names (${refusal.path}) is not empty (${refusal.tables} tables); restore only into an empty store. ` +
        'Stop the platform, then point DATABASE_URL at a new file, or move this one away with its -wal and -shm files.'
      );
  }
}

function printCopy(io: CliIo, title: string, paths: Record<string, string>, copy: SqliteCopy, started: number, json: boolean): void {
  printRecord(io, title, { ...paths, pages: copy.pages, bytes: copy.bytes, seconds: (Date.now() - started) / 1000 }, json);
}
