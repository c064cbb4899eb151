import type { Command } from 'commander';
import type { ClientPrincipal } from '../../domain/auth/principal.js';
import { DomainEventBus } from '../../domain/events.js';
import { createAlertRule, listAlertRules } from '../../domain/rules/rule-service.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

const list = (value: string | undefined) =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((v) => v.trim())
        .filter((v) => v !== '');

const number = (value: string | undefined) => (value === undefined ? undefined : Number(value));

/** The operator at the command line acts for the organization as its API clients do. */
function operatorOf(organizationId: string): ClientPrincipal {
  return { kind: 'client', organizationId, clientId: 'cli', responsible: 'cli' };
}

/**
 * `thingdesk rule create|list --org ...` (SPEC section 13). They work on the store; a running platform reads a new
 * rule at its alert engine's next periodic run (or at once when the rule is created over REST or GraphQL).
 */
export function registerRuleCommands(program: Command, io: CliIo): void {
  const rule = program.command('rule').description("manage an organization's alert rules");
  const names = {
    fields: { name: '--name', tsmId: '--tsm-id', field: '--field', op: '--op', threshold: '--threshold', severity: '--severity' },
    hints: { CONFLICT: '--name (another rule has it)' },
  };

  rule
    .command('create')
    .description('create an alert rule on a numeric field of an uplink')
    .requiredOption('--org <organizationId>', 'organization id')
    .requiredOption('--name <name>', 'unique in the organization, 1 to 100 characters')
    .requiredOption('--tsm-id <id>', 'the message id the rule reads')
    .requiredOption('--field <path>', 'a dotted path into the message (env.temp)')
    .requiredOption('--op <op>', 'gt, gte, lt, lte, eq or ne')
    .requiredOption('--threshold <value>', 'the threshold')
    .option('--clear-threshold <value>', 'hysteresis: the alert closes only once the value is back past this')
    .option('--for-s <seconds>', 'how long the condition must hold before the alert opens (default 0)')
    .option('--group-ids <ids>', 'only things in these groups (comma-separated)')
    .option('--tuids <tuids>', 'only these things (comma-separated)')
    .option('--severity <severity>', 'info, warning or critical', 'warning')
    .option('--json', 'print the result as JSON')
    .action(
      async (options: {
        org: string;
        name: string;
        tsmId: string;
        field: string;
        op: string;
        threshold: string;
        clearThreshold?: string;
        forS?: string;
        groupIds?: string;
        tuids?: string;
        severity: string;
        json?: boolean;
      }) => {
        const created = await withStore(
          io,
          (deps) =>
            createAlertRule({ ...deps, events: new DomainEventBus(() => undefined) }, operatorOf(options.org), {
              name: options.name,
              tsmId: number(options.tsmId),
              field: options.field,
              op: options.op,
              threshold: number(options.threshold),
              clearThreshold: number(options.clearThreshold),
              forS: number(options.forS),
              scope: { groupIds: list(options.groupIds), tuids: list(options.tuids) },
              severity: options.severity,
            }),
          names,
        );
        printRecord(
          io,
          'Created alert rule',
          { id: created.id, organizationId: created.organizationId, name: created.name, condition: conditionOf(created) },
          !!options.json,
        );
      },
    );

  rule
    .command('list')
    .description("list an organization's alert rules")
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--json', 'print the result as JSON lines')
    .action(async (options: { org: string; json?: boolean }) => {
      const rules = await withStore(io, (deps) => listAlertRules(deps, operatorOf(options.org)), names);
      for (const r of rules)
        printRecord(
          io,
          `Alert rule ${r.id}`,
          { id: r.id, name: r.name, condition: conditionOf(r), forS: r.forS, severity: r.severity, enabled: r.enabled },
          !!options.json,
        );
    });
}

function conditionOf(r: { tsmId: number; field: string; op: string; threshold: number }): string {
  return `${r.tsmId}.${r.field} ${r.op} ${r.threshold}`;
}
