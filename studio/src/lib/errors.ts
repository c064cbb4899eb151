import type { CombinedError } from '@urql/core';

/** A field the server named in a validation error (`extensions.errors` of GraphQL, `errors` of REST). */
export interface FieldProblem {
  field: string;
  message: string;
}

/** An error the studio shows: the server's message, its code, and the fields it named (to put next to inputs). */
export class StudioError extends Error {
  constructor(
    message: string,
    readonly code: string,
    readonly fields: FieldProblem[] = [],
    readonly allowed: string[] = [],
  ) {
    super(message);
  }

  /** The message for one field, when the server named it. */
  fieldMessage(field: string): string | undefined {
    return this.fields.find((problem) => problem.field === field)?.message;
  }
}

/** urql's combined error as one StudioError: the first GraphQL error's code and fields, or the network failure. */
export function fromCombinedError(error: CombinedError): StudioError {
  const first = error.graphQLErrors[0];
  if (first) {
    const extensions = first.extensions as { code?: string; errors?: FieldProblem[]; allowed?: string[] };
    return new StudioError(first.message, extensions.code ?? 'INTERNAL_SERVER_ERROR', extensions.errors ?? [], extensions.allowed ?? []);
  }
  return new StudioError('The platform cannot be reached. Check the connection and try again.', 'NETWORK');
}

/** Any thrown value as a sentence for the user. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
