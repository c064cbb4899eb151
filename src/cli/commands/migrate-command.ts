import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { openStore } from '../../app/open-store.js';
import { migrateToLatest } from '../../store/migrate.js';
import { printRecord, type CliIo } from '../cli-io.js';

/** `thingdesk migrate`: brings the store to the newest schema (serve does this too, at start-up). */
export function registerMigrateCommand(program: Command, io: CliIo): void {
  program
    .command('migrate')
    .description('apply pending store migrations and exit')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const database = await openStore(loadConfig(io.env).databaseUrl);
      try {
        const report = await migrateToLatest(database);
        printRecord(
          io,
          report.applied.length > 0 ? 'Applied migrations' : 'Store is up to date',
          { applied: report.applied.join(', ') || 'none' },
          !!options.json,
        );
      } finally {
        await database.close();
      }
    });
}
