import { Type } from '@sinclair/typebox';
import { shownGroupId } from '../../../domain/groups/unassigned-group.js';
import { rollupLimits } from '../../../domain/series/rollup-rules.js';
import { readGroupSeries, readThingSeries, seriesBuckets, seriesMaxPoints } from '../../../domain/series/series-query.js';
import { workOfResponse } from '../../abandoned-requests.js';
import type { Series } from '../../../domain/series/series-types.js';
import { sendBuffers } from '../../send-buffers.js';
import { RenderedRuns } from '../rendered-runs.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { seriesAnswerJson } from '../series-json.js';
import { TuidParams, dataOf, errors } from '../schemas.js';
import { GroupParams } from './group-routes.js';

const SeriesQuery = Type.Object(
  {
    tsmId: Type.Integer({ minimum: 0, maximum: 2_147_483_647, description: 'Message id (tsmId) whose field is read' }),
    field: Type.String({
      minLength: 1,
      maxLength: rollupLimits.maxFieldNameLength,
      description: 'Numeric field of the message; members of nested objects by their dotted path (`position.lat`)',
    }),
    from: Type.Integer({ minimum: 0, description: 'Unix seconds (tsmTs), inclusive' }),
    to: Type.Integer({ minimum: 0, description: 'Unix seconds (tsmTs), inclusive' }),
    bucket: Type.Optional(
      Type.Union(
        seriesBuckets.map((b) => Type.Literal(b)),
        { description: '`raw` (each message), `1h` or `1d` (UTC), or `auto` (default): the finest giving at most maxPoints' },
      ),
    ),
    maxPoints: Type.Optional(
      Type.Integer({
        minimum: seriesMaxPoints.min,
        maximum: seriesMaxPoints.max,
        description: `at most this many points; ${seriesMaxPoints.default} when absent. An explicit bucket that would give more is a 400`,
      }),
    ),
  },
  { required: ['tsmId', 'field', 'from', 'to'] },
);

const Bucket = Type.Union([Type.Literal('raw'), Type.Literal('1h'), Type.Literal('1d')]);
const Point = Type.Object({
  t: Type.Number({ description: "Unix seconds: the bucket's start, or the message's tsmTs for a raw point" }),
  count: Type.Integer(),
  min: Type.Number(),
  max: Type.Number(),
  avg: Type.Number(),
  first: Type.Number({ description: 'value with the earliest tsmTs in the bucket' }),
  last: Type.Number({ description: 'value with the latest tsmTs in the bucket' }),
});
const Segment = Type.Object(
  { from: Type.Integer(), to: Type.Integer(), bucket: Bucket },
  { description: 'A part of the range and the bucket that answered it: before the raw retention horizon, raw is answered by 1h' },
);
const seriesFields = {
  tsmId: Type.Integer(),
  field: Type.String(),
  bucket: { ...Bucket, description: 'The bucket chosen (auto resolved)' },
  segments: Type.Array(Segment),
  points: Type.Array(Point, { description: 'Oldest first; empty buckets are left out' }),
};
const ThingSeries = Type.Object({ tuid: Type.String(), ...seriesFields });
const GroupSeries = Type.Object({ group_id: Type.String({ description: '`unassigned` for the things in no group' }), ...seriesFields });

/** Everything of a series answer but its points (seriesAnswerJson writes those). */
const seriesHead = (series: Series) => ({ tsmId: series.tsmId, field: series.field, bucket: series.bucket, segments: series.segments });

/** The series answers' content type, as the response schema's serializer would give it. */
const jsonType = 'application/json; charset=utf-8';

/**
 * Time series of a numeric field over hourly rollups and raw messages (SPEC section 9). The answers are written by
 * seriesAnswerJson, with compacted days and raw hours kept rendered; the 200 schemas document them (test/http/rest/series-json.test.ts
 * holds the two to each other).
 */
export function registerSeriesRoutes(app: RestApp, deps: RestDeps): void {
  const rendered = new RenderedRuns(deps.config.seriesCacheMb * 1024 * 1024);
  const tags = ['series'];
  const description =
    'Points of one numeric field of one message id over [from, to]. Rollup buckets are whole UTC hours or days whose start lies ' +
    'in [from rounded down to the bucket, to]. A field never seen answers no points. Before the raw retention horizon raw data ' +
    'is answered from the hourly rollups, and `segments` says so.';

  app.get(
    '/things/:tuid/series',
    {
      schema: {
        operationId: 'getThingSeries',
        tags,
        summary: "A thing's time series of one numeric field",
        description,
        params: TuidParams,
        querystring: SeriesQuery,
        response: { 200: dataOf(ThingSeries), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { tuid } = request.params;
      const days = rendered.reading();
      const series = await readThingSeries(deps, request.client, { tuid, ...request.query }, days.known, workOfResponse(reply.raw));
      sendBuffers(reply, jsonType, seriesAnswerJson({ tuid, ...seriesHead(series) }, series.runs, days));
    },
  );

  app.get(
    '/groups/:groupid/series',
    {
      config: { fieldNames: { groupId: 'groupid' } },
      schema: {
        operationId: 'getGroupSeries',
        tags,
        summary: "A group's time series of one numeric field (over the things in the group when each message arrived)",
        description,
        params: GroupParams,
        querystring: SeriesQuery,
        response: { 200: dataOf(GroupSeries), ...errors(400, 401, 404, 429) },
      },
    },
    async (request, reply) => {
      const { groupid } = request.params;
      const days = rendered.reading();
      const series = await readGroupSeries(
        deps,
        request.client,
        { groupId: groupid, ...request.query },
        days.known,
        workOfResponse(reply.raw),
      );
      const head = { group_id: shownGroupId(series.groupId), ...seriesHead(series) };
      sendBuffers(reply, jsonType, seriesAnswerJson(head, series.runs, days));
    },
  );
}
