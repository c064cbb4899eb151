import type { Command } from 'commander';
import { listAuditEntries, verifyAuditChain } from '../../domain/audit/audit-service.js';
import type { AuditVerification } from '../../domain/audit/audit-types.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk audit verify [--org ORG]`, `thingdesk audit list --org ORG`: the audit log (SPEC 14). Reads only. */
export function registerAuditCommands(program: Command, io: CliIo): void {
  const audit = program.command('audit').description("read and check organizations' audit logs");
  audit
    .command('verify')
    .description("check the hash chain of one organization's log (every organization's without --org); exits 1 naming the first bad entry")
    .option('--org <organizationId>', 'organization id')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org?: string; json?: boolean }) => {
      const results = await withStore(io, async (deps) => {
        const organizations = options.org ? [options.org] : await deps.store.audit.organizations();
        const results: [string, AuditVerification][] = [];
        for (const organizationId of organizations) results.push([organizationId, await verifyAuditChain(deps, organizationId)]);
        return results;
      });
      let failed = false;
      for (const [organizationId, result] of results) {
        const invalid = result.firstInvalid;
        if (invalid) {
          failed = true;
          io.stderr(
            `thingdesk: audit log of ${organizationId}: entry ${invalid.id} ${invalid.reason} (${result.checked} entries before it verify)\n`,
          );
        }
        printRecord(
          io,
          invalid ? 'Audit log does NOT verify' : 'Audit log verifies',
          { organizationId, ok: result.ok, checked: result.checked, firstInvalid: invalid ? `${invalid.id} ${invalid.reason}` : 'none' },
          !!options.json,
        );
      }
      if (failed) throw new AuditChainBroken();
    });
  audit
    .command('list')
    .description("one organization's newest entries")
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--limit <n>', 'at most this many (1 to 1000)', '100')
    .option('--action <action>', 'only this action')
    .option('--target-type <type>', 'only targets of this type')
    .option('--target-id <id>', 'only this target')
    .action(async (options: { org: string; limit: string; action?: string; targetType?: string; targetId?: string }) => {
      const page = await withStore(io, (deps) =>
        listAuditEntries(
          deps,
          { kind: 'client', organizationId: options.org, clientId: 'cli', responsible: 'cli' },
          { limit: Number(options.limit), action: options.action, targetType: options.targetType, targetId: options.targetId },
        ),
      );
      for (const entry of page.entries) {
        io.stdout(
          `${JSON.stringify({ id: entry.id, at: new Date(entry.at).toISOString(), actor: entry.actor, via: entry.via, action: entry.action, target: entry.target, changes: entry.changes, outcome: entry.outcome })}\n`,
        );
      }
    });
}

/** Exit 1 once the verdicts are printed (the CLI's error path prints this line). */
class AuditChainBroken extends Error {
  constructor() {
    super('the audit log does not verify');
  }
}
