import { importThings } from '../../../domain/provisioning/thing-import.js';
import { exportThingsWhole } from '../../../domain/provisioning/thing-export.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

type ImportThingsArguments = {
  content: string;
  format: 'CSV' | 'NDJSON';
  dryRun?: boolean | null;
  createGroups?: boolean | null;
  changedOnly?: boolean | null;
};

/** The import of things: the domain function REST calls, with the file as the argument's text. */
export const provisioningResolvers = {
  Query: {
    thingsExport: (
      _: unknown,
      args: {
        format?: 'CSV' | 'NDJSON' | null;
        filter?: Record<string, string | number | boolean | null | undefined> | null;
        labels?: { key: string; value: string }[] | null;
      },
      context: GraphqlContext,
    ) => {
      // null in GraphQL is "not given" here, as in the things list.
      const filter = Object.fromEntries(Object.entries(args.filter ?? {}).filter(([, value]) => value !== null && value !== undefined));
      return exportThingsWhole(context.deps, userOf(context), {
        ...filter,
        labels: args.labels ?? undefined,
        format: args.format === 'NDJSON' ? 'ndjson' : 'csv',
      });
    },
  },
  Mutation: {
    importThings: async (_: unknown, args: ImportThingsArguments, context: GraphqlContext) => {
      const plan = await importThings(context.deps, userOf(context), {
        body: [args.content],
        format: args.format === 'CSV' ? 'csv' : 'ndjson',
        dryRun: args.dryRun === true,
        createGroups: args.createGroups === true,
        onlyChanged: args.changedOnly === true,
      });
      return { ...plan, rows: plan.rows.map((row) => ({ ...row, changes: row.changes ?? null, errors: row.errors ?? null })) };
    },
  },
};
