// Time series: points, segments (raw or rolled up) and the series of a thing or group.
// Part of typeDefs (../type-defs.ts), which joins the parts in this order.
export const seriesSdl = /* GraphQL */ `
  "One point of a series: a bucket's figures, or one stored message (count 1, every figure its value)."
  type SeriesPoint {
    "The bucket's start (UTC hour or day), or the message's tsmTs for a raw point, Unix seconds."
    t: Float!
    "Readings in the bucket."
    count: Int!
    "Smallest reading."
    min: Float!
    "Largest reading."
    max: Float!
    "Mean of the readings."
    avg: Float!
    "The reading with the earliest tsmTs."
    first: Float!
    "The reading with the latest tsmTs."
    last: Float!
  }

  "A part of the asked range and the bucket that answered it (before the raw retention horizon, raw is answered by 1h)."
  type SeriesSegment {
    "Start of the part, Unix seconds."
    from: Int!
    "End of the part, Unix seconds, inclusive."
    to: Int!
    "raw, 1h or 1d."
    bucket: String!
  }

  "A time series of one numeric field of one message id, from the hourly rollups and the stored messages."
  type Series {
    "The thing's TUID (series); null for a group's series."
    tuid: ID
    "The group ('unassigned': things in no group) for groupSeries; null for a thing's series."
    groupId: String
    "The message id (tsmId) read."
    tsmId: Int!
    "The field read; members of nested objects by their dotted path."
    field: String!
    "The bucket chosen: raw, 1h or 1d (auto resolved)."
    bucket: String!
    "Which bucket answered which part of the range."
    segments: [SeriesSegment!]!
    "The points, oldest first; empty buckets are left out."
    points: [SeriesPoint!]!
  }
`;
