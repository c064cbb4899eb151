import { createReadStream } from 'node:fs';
import type { Command } from 'commander';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import { notFound } from '../../domain/errors.js';
import type { ImportFormat } from '../../domain/provisioning/import-limits.js';
import { importMqttCredentials } from '../../domain/provisioning/mqtt-credential-import.js';
import { exportThings } from '../../domain/provisioning/thing-export.js';
import { importThings } from '../../domain/provisioning/thing-import.js';
import type { ImportPlan } from '../../domain/provisioning/thing-import-types.js';
import { reservedTuidsOf, restRoutePaths } from '../../http/route-table.js';
import { withStore, type CliIo } from '../cli-io.js';

/**
 * `thingdesk things import FILE --org ORG [--dry-run] [--create-groups]`, `thingdesk things export --org ORG
 * [--format csv|ndjson]` and `thingdesk mqtt-credential import FILE --org ORG [--dry-run]` (SPEC section 12): the
 * same domain functions as REST, on the store directly, on behalf of `cli` (the installation history's
 * `responsible`). They ask nothing: `--dry-run` shows the plan, without it the plan is applied, all rows or none.
 * The plan is printed as a table (`--json`: the plan object).
 */
export function registerProvisioningCommands(program: Command, io: CliIo): void {
  const things = program.command('things').description("import and export an organization's things (names, labels, groups, status)");
  things
    .command('import <file>')
    .description('import things from a CSV or NDJSON file (by its extension): plan with --dry-run, else apply all rows or none')
    .requiredOption('--org <organizationId>', 'the organization')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--create-groups', 'create the groups the file names that do not exist')
    .option('--json', 'print the plan as JSON')
    .action(async (file: string, options: { org: string; dryRun?: boolean; createGroups?: boolean; json?: boolean }) => {
      const plan = await withStore(
        io,
        async (deps, config) => {
          await requireOrganization(deps.store, options.org);
          const reservedTuids = reservedTuidsOf(await restRoutePaths(config));
          return importThings({ ...deps, reservedTuids }, cliPrincipal(options.org), {
            body: createReadStream(file),
            format: formatOfFile(file),
            dryRun: options.dryRun === true,
            createGroups: options.createGroups === true,
            onlyChanged: false,
          });
        },
        { hints: { NOT_FOUND: '--org' } },
      );
      printPlan(io, plan, ['row', 'tuid', 'action', 'detail'], (row) => [row.row, row.tuid, row.action, detailOf(row)], !!options.json);
    });
  things
    .command('export')
    .description("write the organization's things as CSV or NDJSON, in the columns the import reads")
    .requiredOption('--org <organizationId>', 'the organization')
    .option('--format <format>', 'csv or ndjson', 'csv')
    .action(async (options: { org: string; format: string }) => {
      await withStore(
        io,
        async (deps) => {
          await requireOrganization(deps.store, options.org);
          const exported = await exportThings(deps, cliPrincipal(options.org), { format: options.format });
          for await (const chunk of exported.chunks) io.stdout(chunk);
        },
        { fields: { format: '--format' }, hints: { NOT_FOUND: '--org' } },
      );
    });

  const credential = program.commands.find((c) => c.name() === 'mqtt-credential') ?? program.command('mqtt-credential');
  credential
    .command('import <file>')
    .description('import MQTT credentials (username, kind, password?) from CSV or NDJSON; prints generated passwords once')
    .requiredOption('--org <organizationId>', 'the organization')
    .option('--dry-run', 'print the plan and change nothing')
    .option('--json', 'print the plan as JSON')
    .action(async (file: string, options: { org: string; dryRun?: boolean; json?: boolean }) => {
      const plan = await withStore(
        io,
        async (deps) => {
          await requireOrganization(deps.store, options.org);
          return importMqttCredentials(deps, cliPrincipal(options.org), {
            body: createReadStream(file),
            format: formatOfFile(file),
            dryRun: options.dryRun === true,
          });
        },
        { hints: { NOT_FOUND: '--org' } },
      );
      printPlan(
        io,
        plan,
        ['row', 'username', 'kind', 'action', 'password'],
        (r) => [r.row, r.username, r.kind, r.action, r.password ?? ''],
        !!options.json,
      );
    });
}

function cliPrincipal(organizationId: string): ClientPrincipal {
  return { kind: 'client', organizationId, clientId: 'cli', responsible: 'cli' };
}

async function requireOrganization(store: { organizations: { get(id: string): Promise<unknown> } }, organizationId: string): Promise<void> {
  if (!(await store.organizations.get(organizationId))) throw notFound(`No organization with id ${organizationId}.`);
}

/** `.ndjson` / `.jsonl` files are NDJSON; anything else is read as CSV. */
function formatOfFile(file: string): ImportFormat {
  return /\.(nd)?jsonl?$/i.test(file) ? 'ndjson' : 'csv';
}

function detailOf(row: { changes?: object; errors?: { field: string; message: string }[] }): string {
  if (row.errors) return row.errors.map((e) => e.message).join('; ');
  return row.changes ? Object.keys(row.changes).join(', ') : '';
}

/** The plan as a table (a header, one line per row, the counts), or as JSON. */
function printPlan<Row>(io: CliIo, plan: ImportPlan<Row>, header: string[], cells: (row: Row) => unknown[], json: boolean): void {
  if (json) {
    io.stdout(`${JSON.stringify(plan)}\n`);
    return;
  }
  const table = [header, ...plan.rows.map((row) => cells(row).map((cell) => String(cell ?? '')))];
  const widths = header.map((_, i) => Math.max(...table.map((line) => line[i]!.length)));
  for (const line of table)
    io.stdout(
      `${line
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  const { create, update, unchanged, error } = plan.counts;
  io.stdout(
    `${plan.applied ? 'Applied' : 'Planned (nothing changed)'}: ${create} create, ${update} update, ${unchanged} unchanged, ${error} error\n`,
  );
}
