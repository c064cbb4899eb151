import type { Command } from 'commander';
import { withFieldNames } from '../../domain/errors.js';
import { createOrganization } from '../../domain/identity/identity-service.js';
import { retentionDefaultsOf } from '../../domain/retention/retention-rules.js';
import { getRetention, setRetention } from '../../domain/retention/retention-service.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk org create --name NAME [--id SLUG]`, `thingdesk org retention --org ID [--messages-days N] [--rollups-days N]`. */
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
  org
    .command('retention')
    .description(
      "show or set how long an organization keeps its data (days from arrival; 0 keeps forever; 'default' follows the platform's setting)",
    )
    .requiredOption('--org <id>', 'organization id')
    .option('--messages-days <days>', "raw messages: 0 to 36500, or 'default'")
    .option('--rollups-days <days>', "hourly and daily rollups: 0 to 36500, or 'default'")
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; messagesDays?: string; rollupsDays?: string; json?: boolean }) => {
      const retention = await withStore(io, async (deps, config) => {
        const retentionDeps = { store: deps.store, retentionDefaults: retentionDefaultsOf(config) };
        if (options.messagesDays === undefined && options.rollupsDays === undefined) return getRetention(retentionDeps, options.org);
        try {
          return await setRetention(retentionDeps, options.org, {
            messageRetentionDays: daysOption(options.messagesDays),
            rollupRetentionDays: daysOption(options.rollupsDays),
          });
        } catch (error) {
          throw withFieldNames(error, { messageRetentionDays: '--messages-days', rollupRetentionDays: '--rollups-days' });
        }
      });
      printRecord(
        io,
        'Retention (days; 0 keeps forever)',
        {
          organizationId: retention.organizationId,
          messageRetentionDays: retention.messageRetentionDays,
          rollupRetentionDays: retention.rollupRetentionDays,
          messageRetentionOverride: retention.messageRetentionOverride,
          rollupRetentionOverride: retention.rollupRetentionOverride,
        },
        !!options.json,
      );
    });
}

/** An option's days as the domain takes them: absent unchanged, `default` null, digits a number; anything else as given (refused, named). */
function daysOption(raw: string | undefined): unknown {
  if (raw === undefined) return undefined;
  if (raw.trim().toLowerCase() === 'default') return null;
  return /^\s*-?\d+\s*$/.test(raw) ? Number(raw) : raw;
}
