import { fleetHealthLimits } from '../fleet/fleet-health.js';
import { seriesFieldsRecentMessages } from '../series/series-fields.js';
import { seriesMaxPoints } from '../series/series-query.js';
import { groupListLimit } from '../groups/group-service.js';
import { hourSeconds } from '../series/rollup-rules.js';
import { previewSampleLimit, previewScanRows } from '../rules/rule-preview-bounds.js';
import { thingPageLimit } from '../things/thing-queries.js';

/**
 * What reads cost, in one unit: about one point, message or row a read may go through. A transport that lets one
 * request ask for many reads (GraphQL's aliases, fragments and nested lists) adds these up before anything runs and
 * refuses a request over its budget (GRAPHQL_COST_LIMIT). The figures are what the arguments allow at most, not what
 * the store holds: a cost is known before any read. An argument that is not a number (a bad variable) costs its
 * default here; the domain refuses it later.
 */
export const readCosts = {
  /**
   * A series: its `maxPoints` (the points it may answer), and when it may read raw messages (bucket `raw`, or
   * `auto`, which picks raw when it fits), one more per hour of its range: raw reads go hour by hour, and a range
   * holds messages the answer never shows (other fields, more than maxPoints).
   */
  series(input: { from?: unknown; to?: unknown; bucket?: unknown; maxPoints?: unknown }): number {
    const maxPoints = numberOr(input.maxPoints, seriesMaxPoints.default);
    const bucket = input.bucket ?? 'auto';
    if (bucket !== 'raw' && bucket !== 'auto') return maxPoints;
    const from = numberOr(input.from, 0);
    const to = numberOr(input.to, from);
    return maxPoints + Math.max(0, Math.ceil((to - from) / hourSeconds));
  },

  /** A page of stored messages: its `limit`. */
  messages(input: { limit?: unknown }): number {
    return numberOr(input.limit, 1);
  },

  /**
   * The fleet overview: folded set-based from every thing of the organization, its cost is the fleet's size, which is
   * not known before reading; counted as a fleet of 10,000 things, plus the lists it answers.
   */
  fleetHealth(input: { limit?: unknown }): number {
    return 10_000 + 4 * numberOr(input.limit, fleetHealthLimits.limit.default);
  },

  /**
   * A rule's preview: the scope's things counted (a fleet, as for the overview) and, on each of the sampled things,
   * its newest messages scanned for the rule's id.
   */
  rulePreview: 10_000 + previewSampleLimit * previewScanRows,

  /** A thing's series fields: its newest messages are read and parsed. */
  seriesFields: seriesFieldsRecentMessages,

  /** Items of a page of things (`first`), each one unit and a multiplier of what it selects. */
  thingPage(input: { first?: unknown }): number {
    return numberOr(input.first, thingPageLimit.default);
  },

  /** A group's things, which come unpaged: counted as the largest page of things. */
  groupThings: thingPageLimit.max,

  /** A page of groups (`limit`), each one unit. */
  groupPage(input: { limit?: unknown }): number {
    return numberOr(input.limit, groupListLimit.default);
  },
} as const;

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}
