import type { Command } from 'commander';
import { createMqttCredential } from '../../domain/identity/identity-service.js';
import { mqttCredentialKinds } from '../../domain/identity/types.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk mqtt-credential create --org ID --kind gateway|integration [--username U] [--password P]`. */
export function registerMqttCredentialCommands(program: Command, io: CliIo): void {
  const credential = program.command('mqtt-credential').description('manage MQTT credentials');
  credential
    .command('create')
    .description('create an MQTT credential; prints a generated password once')
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--kind <kind>', `one of ${mqttCredentialKinds.join(', ')}`, 'gateway')
    .option('--username <username>', 'username (generated when omitted)')
    .option('--password <password>', 'password, at least 8 characters (generated when omitted)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; kind: string; username?: string; password?: string; json?: boolean }) => {
      const created = await withStore(
        io,
        (deps) =>
          createMqttCredential(deps, {
            organizationId: options.org,
            kind: options.kind,
            username: options.username,
            password: options.password,
          }),
        {
          fields: { kind: '--kind', username: '--username', password: '--password' },
          hints: { NOT_FOUND: '--org', CONFLICT: '--username' },
        },
      );
      printRecord(
        io,
        'Created MQTT credential',
        {
          username: created.credential.username,
          organizationId: created.credential.organizationId,
          kind: created.credential.kind,
          ...(options.password === undefined && { password: created.password }),
        },
        !!options.json,
      );
    });
}
