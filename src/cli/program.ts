import { Command, CommanderError } from 'commander';
import { packageVersion } from '../app/package-version.js';
import { ConfigError } from '../config/config-error.js';
import { AppError } from '../domain/errors.js';
import type { CliIo } from './cli-io.js';
import { registerAuditCommands } from './commands/audit-commands.js';
import { registerBackupCommands } from './commands/backup-commands.js';
import { registerClientCommands } from './commands/client-commands.js';
import { registerWebhookCommands } from './commands/webhook-commands.js';
import { registerRuleCommands } from './commands/rule-commands.js';
import { registerChannelCommands } from './commands/channel-commands.js';
import { registerKeysCommands } from './commands/keys-commands.js';
import { registerMigrateCommand } from './commands/migrate-command.js';
import { registerMqttCredentialCommands } from './commands/mqtt-credential-commands.js';
import { registerOrgCommands } from './commands/org-commands.js';
import { registerThingCommands } from './commands/thing-commands.js';
import { registerProvisioningCommands } from './commands/provisioning-commands.js';
import { registerServeCommand } from './commands/serve-command.js';
import { registerSimulateCommand } from './commands/simulate-command.js';
import { registerStatusCommand } from './commands/status-command.js';
import { registerUserCommands } from './commands/user-commands.js';

/** Every command of `thingdesk`, wired to `io` (also what the audit walk test lists the commands from). */
export function buildProgram(io: CliIo): Command {
  const program = new Command('thingdesk')
    .description('Self-hosted device management platform')
    .version(packageVersion, '-V, --version', 'print the version and exit')
    .exitOverride()
    .configureOutput({ writeOut: (text) => io.stdout(text), writeErr: (text) => io.stderr(text) });
  registerServeCommand(program, io);
  registerMigrateCommand(program, io);
  registerOrgCommands(program, io);
  registerUserCommands(program, io);
  registerClientCommands(program, io);
  registerWebhookCommands(program, io);
  registerRuleCommands(program, io);
  registerChannelCommands(program, io);
  registerMqttCredentialCommands(program, io);
  registerThingCommands(program, io);
  registerProvisioningCommands(program, io);
  registerKeysCommands(program, io);
  registerSimulateCommand(program, io);
  registerStatusCommand(program, io);
  registerBackupCommands(program, io);
  registerAuditCommands(program, io);
  return program;
}

/**
 * Runs the `thingdesk` command line and resolves to the process exit code. `serve` resolves only when the
 * server has stopped. Errors print one line on stderr: configuration errors name the variable, input errors
 * name the option.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    // With no command at all, `thingdesk` serves: the same as `thingdesk serve`.
    await program.parseAsync(argv.length === 0 ? ['serve'] : [...argv], { from: 'user' });
    return 0;
  } catch (error) {
    return reportError(io, error);
  }
}

function reportError(io: CliIo, error: unknown): number {
  if (error instanceof CommanderError) return error.exitCode;
  if (error instanceof ConfigError) {
    io.stderr(`thingdesk: configuration error: ${error.message}\n`);
    return 2;
  }
  if (error instanceof AppError) {
    const fields = error.errors.map((e) => `\n  ${e.field}: ${e.message}`).join('');
    io.stderr(`thingdesk: ${error.message}${fields}\n`);
    return 1;
  }
  io.stderr(`thingdesk: ${(error as Error).message ?? String(error)}\n`);
  return 1;
}
