import type { Command } from 'commander';
import { validationFailed } from '../../domain/errors.js';
import { markBreakGlass } from '../../domain/identity/break-glass.js';
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
    .option('--break-glass', 'a Manager who may sign in with a password even when AUTH_PASSWORD_LOGIN=false (docs/sso.md)')
    .option('--json', 'print the result as JSON')
    .action(async (options: { org: string; email: string; role: string; password?: string; breakGlass?: boolean; json?: boolean }) => {
      const password = options.password ?? generateSecret(18);
      const created = await withStore(
        io,
        async (deps) => {
          if (options.breakGlass && options.role !== 'Manager')
            throw validationFailed([{ field: 'role', message: '--break-glass needs --role Manager' }]);
          const user = await createUser(deps, { organizationId: options.org, email: options.email, role: options.role, password });
          if (options.breakGlass) await markBreakGlass(deps, user);
          return user;
        },
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
          ...(options.breakGlass && { breakGlass: true }),
          ...(options.password === undefined && { password }),
        },
        !!options.json,
      );
    });
}
