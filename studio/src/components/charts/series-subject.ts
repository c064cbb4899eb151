/**
 * Whose series a chart shows: one thing's (GraphQL `series`) or a group's (`groupSeries`: every reading of the
 * group's things in each bucket, as count, min, max and mean). Both answer the same Series, so one chart draws either.
 * A group's raw points are its things' messages interleaved (one line zigzagging between sensors), so a group is
 * read by the hour: each point the mean, least and greatest of the hour's readings; by the day past 1000 hours.
 */
export type SeriesSubject = { tuid: string } | { groupId: string };

/** Points per chart at most (the series' default); a group's hourly buckets fit within it up to 1000 hours. */
const maxPoints = 1000;
const pointFields = 'bucket points { t min max avg count }';

const thingSeriesQuery = /* GraphQL */ `
  query StudioSeries($tuid: ID!, $tsmId: Int!, $field: String!, $from: Int!, $to: Int!) {
    series: series(tuid: $tuid, tsmId: $tsmId, field: $field, from: $from, to: $to, maxPoints: ${maxPoints}) { ${pointFields} }
  }
`;
const groupSeriesQuery = /* GraphQL */ `
  query StudioGroupSeries($groupId: String!, $tsmId: Int!, $field: String!, $from: Int!, $to: Int!, $bucket: String) {
    series: groupSeries(groupId: $groupId, tsmId: $tsmId, field: $field, from: $from, to: $to, bucket: $bucket, maxPoints: ${maxPoints}) {
      ${pointFields}
    }
  }
`;

/** The query reading `subject`'s series over [from, to] and its variables besides the message id and field. */
export function seriesRequest(
  subject: SeriesSubject,
  from: number,
  to: number,
): { document: string; variables: Record<string, string | number> } {
  if ('tuid' in subject) return { document: thingSeriesQuery, variables: { tuid: subject.tuid, from, to } };
  // 'auto' past 1000 hours takes the daily buckets (hourly would be refused as more than maxPoints).
  const bucket = (to - from) / 3600 < maxPoints ? '1h' : 'auto';
  return { document: groupSeriesQuery, variables: { groupId: subject.groupId, from, to, bucket } };
}

/** A name for ids and test hooks: the thing's TUID or "group-<id>". */
export const subjectKey = (subject: SeriesSubject) => ('tuid' in subject ? subject.tuid : `group-${subject.groupId}`);
