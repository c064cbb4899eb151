/** Helpers for callers that report catalog problems inside a larger body. */
import { joinPath } from './check-value.js';
import type { Problem } from './types.js';

/**
 * Re-roots problems under a prefix such as `commands[2]`: the field `reportInterval` becomes
 * `commands[2].reportInterval` and the message itself ('') becomes `commands[2]`. Messages begin
 * with their field's path (or "message" for the message itself), so that opening is rewritten too.
 */
export function prefixProblems(problems: readonly Problem[], prefix: string): Problem[] {
  return problems.map((problem) => {
    const field = problem.field === '' ? prefix : joinPath(prefix, problem.field);
    const opening = problem.field === '' ? 'message' : problem.field;
    const message = problem.message.startsWith(opening) ? `${field}${problem.message.slice(opening.length)}` : problem.message;
    return { field, message };
  });
}
