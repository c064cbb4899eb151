import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import { listSeriesFields } from '../../../domain/series/series-fields.js';
import { seriesPoints } from '../../../domain/series/series-points.js';
import { readGroupSeries, readThingSeries } from '../../../domain/series/series-query.js';
import { nothingKnown } from '../../../domain/series/series-types.js';
import type { GraphqlContext } from '../graphql-deps.js';
import { userOf } from './resolver-helpers.js';

interface SeriesArguments {
  tsmId: number;
  field: string;
  from: number;
  to: number;
  bucket?: string | null;
  maxPoints?: number | null;
}

const optional = <T extends SeriesArguments>(args: T) => ({
  ...args,
  bucket: args.bucket ?? undefined,
  maxPoints: args.maxPoints ?? undefined,
});

/** Time series of a thing or a group: the same domain functions as REST's series endpoints. */
export const seriesResolvers = {
  Thing: {
    seriesFields: (thing: { tuid: string }, _: unknown, context: GraphqlContext) =>
      listSeriesFields(context.deps, userOf(context), thing.tuid, context.work),
  },
  Query: {
    series: async (_: unknown, args: SeriesArguments & { tuid: string }, context: GraphqlContext) => {
      const series = await readThingSeries(context.deps, userOf(context), optional(args), nothingKnown, context.work);
      return { ...series, groupId: null, points: seriesPoints(series) };
    },
    groupSeries: async (_: unknown, args: SeriesArguments & { groupId: string }, context: GraphqlContext) => {
      const series = await readGroupSeries(context.deps, userOf(context), optional(args), nothingKnown, context.work);
      return { ...series, tuid: null, groupId: shownGroupId(series.groupId), points: seriesPoints(series) };
    },
  },
};
