import type { Command } from 'commander';
import { createUser } from '../../domain/identity/identity-service.js';
import { generateSecret } from '../../domain/identity/secrets.js';
import { roles } from '../../domain/identity/types.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk user create --org ID --email E --role R [--password P]`; a generated password is printed once. */
export function registerUserCommands(program: Command, io: CliIo): void {
  const user = program.command('user').description('manage users');
  user
    .command('create')
    .description('create a user in an organization')
    .requiredOption('--org <organizationId>', 'organization id')
    .requiredOption('--email <email>', 'e-mail address used at sign-in')
    .option('--role <role>', `one of ${roles.join(', ')}`, 'Viewer')
    .option('--password <password>', 'password (at least 8 characters); generated and printed when omitted')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; email: string; role: string; password?: string; json?: boolean }) => {
      const password = options.password ?? generateSecret(18);
      const created = await withStore(
        io,
        (deps) => createUser(deps, { organizationId: options.org, email: options.email, role: options.role, password }),
        { fields: { email: '--email', password: '--password', role: '--role' }, hints: { NOT_FOUND: '--org', CONFLICT: '--email' } },
      );
      printRecord(
        io,
        'Created user',
        {
          userId: created.id,
          organizationId: created.organizationId,
          email: created.email,
          role: created.role,
          ...(options.password === undefined && { password }),
        },
        !!options.json,
      );
    });
}
