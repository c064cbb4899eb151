import type { Command } from 'commander';
import { createApiClient, revokeApiClient } from '../../domain/identity/identity-service.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk client create|revoke`: REST API clients. The secret is printed once, at creation. */
export function registerClientCommands(program: Command, io: CliIo): void {
  const client = program.command('client').description('manage REST API clients');
  client
    .command('create')
    .description('create an API client; prints its secret once')
    .requiredOption('--org <organizationId>', 'organization id')
    .option('--name <name>', 'a label for people', 'API client')
    .option('--client-id <clientId>', 'client id (generated when omitted)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; name: string; clientId?: string; json?: boolean }) => {
      const created = await withStore(
        io,
        (deps) => createApiClient(deps, { organizationId: options.org, name: options.name, clientId: options.clientId }),
        { fields: { name: '--name', clientId: '--client-id' }, hints: { NOT_FOUND: '--org', CONFLICT: '--client-id' } },
      );
      printRecord(
        io,
        'Created API client (the secret is shown only now)',
        {
          clientId: created.client.clientId,
          organizationId: created.client.organizationId,
          name: created.client.name,
          clientSecret: created.clientSecret,
        },
        !!options.json,
      );
    });
  client
    .command('revoke')
    .description('revoke an API client: its tokens stop working at once')
    .argument('<clientId>', 'the client to revoke')
    .option('--json', 'print the result as JSON')
    .action(async (clientId: string, options: { json?: boolean }) => {
      await withStore(io, (deps) => revokeApiClient(deps, { clientId }), { hints: { NOT_FOUND: 'the CLIENT_ID argument' } });
      printRecord(io, 'Revoked API client', { clientId, revoked: true }, !!options.json);
    });
}
