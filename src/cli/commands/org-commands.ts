import type { Command } from 'commander';
import { createOrganization } from '../../domain/identity/identity-service.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk org create --name NAME [--id SLUG]`. */
export function registerOrgCommands(program: Command, io: CliIo): void {
  const org = program.command('org').description('manage organizations');
  org
    .command('create')
    .description('create an organization (its id is derived from the name unless --id is given)')
    .requiredOption('--name <name>', 'unique organization name, used at sign-in')
    .option('--id <slug>', 'organization id: 1-40 characters of a-z, 0-9 and -')
    .option('--json', 'print the result as JSON')
    .action(async (options: { name: string; id?: string; json?: boolean }) => {
      const organization = await withStore(io, (deps) => createOrganization(deps, { name: options.name, id: options.id }), {
        fields: { name: '--name', id: '--id' },
        hints: { CONFLICT: '--name and --id' },
      });
      printRecord(io, 'Created organization', { organizationId: organization.id, name: organization.name }, !!options.json);
    });
}
