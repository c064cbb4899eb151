import type { Command } from 'commander';
import { audited } from '../../domain/audit/audit-recorder.js';
import { auditFields } from '../../domain/audit/audit-types.js';
import { notFound } from '../../domain/errors.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/**
 * `thingdesk thing release --org ID --tuid TUID`: an operator's remedy for a wrong claim. A TUID belongs to the
 * organization whose uplink named it first; another organization's later uplinks for it are dead-lettered. Releasing
 * deletes the claim and what the organization recorded for the thing, so the next uplink claims it anew.
 */
export function registerThingCommands(program: Command, io: CliIo): void {
  const thing = program.command('thing').description('operate on things across organizations');
  thing
    .command('release')
    .description("give up an organization's claim on a TUID, deleting the thing and its recorded data in that organization")
    .requiredOption('--org <organizationId>', 'the organization that holds the claim')
    .requiredOption('--tuid <tuid>', 'the TUID to release')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; tuid: string; json?: boolean }) => {
      await withStore(
        io,
        async (deps) =>
          audited(
            deps,
            undefined,
            { organizationId: options.org, action: 'thing.release', target: { type: 'thing', id: options.tuid } },
            async () => {
              if (!(await deps.store.things.release(options.org, options.tuid)))
                throw notFound(`Organization ${options.org} holds no thing ${options.tuid}.`);
              return {
                result: undefined,
                before: auditFields({ organizationId: options.org }),
                after: auditFields({ organizationId: null }),
              };
            },
          ),
        { hints: { NOT_FOUND: '--org and --tuid' } },
      );
      printRecord(io, 'Released thing', { tuid: options.tuid, organizationId: options.org }, !!options.json);
    });
}
