import { changePassword, resetUserPassword } from '../../../domain/identity/user-passwords.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { namingArguments } from '../graphql-errors.js';
import { userOf } from './resolver-helpers.js';

/** Password change (every signed-in user) and reset (Managers), SPEC section 16. */
export const passwordResolvers = {
  Mutation: {
    changePassword: namingArguments(
      'changePassword',
      async (_: unknown, args: { current: string; new: string }, context: GraphqlContext) => {
        await changePassword(context.deps, userOf(context), { currentPassword: args.current, newPassword: args.new });
        return true;
      },
    ),
    resetUserPassword: (_: unknown, args: { userId: string }, context: GraphqlContext) =>
      resetUserPassword(context.deps, userOf(context), { userId: args.userId }),
  },
};
