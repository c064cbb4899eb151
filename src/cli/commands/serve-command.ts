import type { Command } from 'commander';
import { startApp } from '../../app/build-app.js';
import { capHeapGrowth } from '../../app/heap-growth.js';
import { loadConfig } from '../../config/config.js';
import type { CliIo } from '../cli-io.js';

/** `thingdesk serve`: runs the platform until SIGTERM or SIGINT, then shuts down gracefully. */
export function registerServeCommand(program: Command, io: CliIo): void {
  program
    .command('serve')
    .description('run the platform (HTTP, MQTT, alert engine) until SIGTERM/SIGINT')
    .action(async () => {
      const config = loadConfig(io.env);
      capHeapGrowth(config.heapGrowingPercent);
      const app = await startApp({ config, print: (text) => io.stdout(`${text}\n`) });
      await new Promise<void>((resolve, reject) => {
        const shutDown = (signal: NodeJS.Signals) => {
          app.logger.info({ signal }, 'shutting down: no new connections, finishing in-flight work');
          // A second signal while draining means the operator wants out now.
          process.once(signal, () => process.exit(130));
          app.stop().then(() => {
            app.logger.info('stopped');
            resolve();
          }, reject);
        };
        process.once('SIGTERM', shutDown);
        process.once('SIGINT', shutDown);
      });
    });
}
