import { AppError, unauthenticated, validationFailed } from '../../../domain/errors.js';
import type { UserPrincipal } from '../../../domain/identity/principal.js';
import type { Role } from '../../../domain/identity/types.js';
import { viewThing } from '../../../domain/things/thing-view.js';
import type { GraphqlContext } from '../graphql-deps.js';

/**
 * The signed-in caller. The role schemas already keep anonymous callers away from these fields; this is the
 * second lock, for a resolver reached some other way.
 */
export function userOf(context: GraphqlContext): UserPrincipal {
  if (!context.principal) throw unauthenticated();
  return context.principal;
}

/** GraphQL's Role enum values are upper case; the domain's roles are capitalized words. */
export const roleEnum: Record<string, Role> = { MANAGER: 'Manager', INSTALLER: 'Installer', VIEWER: 'Viewer' };

/** The Thing type: the summary fields in camelCase (SPEC section 4). */
export const presentThing = viewThing;


/**
 * The domain names a bad field as REST does (`group_id`, `installation_status`); a GraphQL caller knows it by the
 * argument's name (`groupId`, `status`). Runs `work` and renames the fields of a VALIDATION_FAILED, in
 * `extensions.errors` and in the messages, by `names` (domain field to argument); other errors pass unchanged.
 */
export async function withArgumentNames<T>(names: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'VALIDATION_FAILED') throw error;
    throw validationFailed(
      error.errors.map((problem) => {
        const argument = names[problem.field];
        if (argument === undefined) return problem;
        const message = problem.message.startsWith(problem.field) ? argument + problem.message.slice(problem.field.length) : problem.message;
        return { field: argument, message };
      }),
    );
  }
}
