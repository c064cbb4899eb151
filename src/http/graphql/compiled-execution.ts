import { execute, type DocumentNode, type ExecutionArgs, type ExecutionResult, type GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery, type CompiledQuery } from 'graphql-jit';

// An operation is compiled the second time it runs: clients repeat the same few operations, and compiling one
// costs about a millisecond, which a one-off query (an ad-hoc call, an introspection) would never earn back.
const compileAfterRuns = 2;

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown }).then === 'function';
}

interface Entry {
  runs: number;
  compiled?: CompiledQuery;
  /** graphql-jit refused it: it stays on graphql-js. */
  uncompilable?: true;
}

/**
 * Queries and mutations over HTTP, executed by graphql-jit: each (schema, document, operation) compiled once into
 * plain functions, which run the same resolvers several times faster than graphql-js interprets the document on
 * every request. Documents arrive already validated (OperationPreparer) and are the cached objects of their query
 * text, so entries live as long as those. What graphql-jit cannot compile runs on graphql-js, as does everything
 * on its first run.
 */
export class CompiledExecution {
  private readonly entries = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, Map<string, Entry>>>();

  execute(args: ExecutionArgs): Promise<ExecutionResult> | ExecutionResult {
    const entry = this.entryOf(args);
    entry.runs += 1;
    if (!entry.compiled && !entry.uncompilable && entry.runs >= compileAfterRuns) {
      const compiled = compileQuery(args.schema, args.document, args.operationName ?? undefined, { disablingCapturingStackErrors: true });
      // A compile failure is an ExecutionResult; graphql-js then runs the operation (and reports any problem).
      if (isCompiledQuery(compiled)) entry.compiled = compiled;
      else entry.uncompilable = true;
    }
    if (!entry.compiled) return execute(args);
    const result = entry.compiled.query(args.rootValue, args.contextValue, args.variableValues);
    // A result without data is a request error (bad variables), found before any resolver ran. graphql-jit words
    // those less precisely ("invalid value"; graphql-js names the enum value that does not exist), so graphql-js
    // answers them.
    return !isPromise(result) && result.data === undefined ? execute(args) : result;
  }

  private entryOf(args: ExecutionArgs): Entry {
    let bySchema = this.entries.get(args.schema);
    if (!bySchema) this.entries.set(args.schema, (bySchema = new WeakMap()));
    let byOperation = bySchema.get(args.document);
    if (!byOperation) bySchema.set(args.document, (byOperation = new Map()));
    const name = args.operationName ?? '';
    let entry = byOperation.get(name);
    if (!entry) byOperation.set(name, (entry = { runs: 0 }));
    return entry;
  }
}
