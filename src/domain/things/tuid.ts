/** A TUID (SPEC section 3): what may appear in a path and, as a topic segment, in MQTT topics. */
export const tuidPattern = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The TUID rule in words, the end of a sentence about a field ("tuid must be ..."): what every refusal of a TUID
 * says, so a user reads what to fix rather than a regular expression.
 */
export const tuidRuleInWords = 'must be 1 to 64 characters, each a letter (A to Z, either case), a digit, or one of . _ : -';

export function isValidTuid(value: string): boolean {
  return tuidPattern.test(value);
}

/**
 * Why `tuid` may not become a new thing's id, as the end of a sentence about `field`, or undefined when it may.
 * Besides the pattern: a TUID equal to a fixed path segment where the API takes a TUID (`alerts` in
 * `/things/alerts`) would make the thing unreachable there, so such segments are reserved. The composition root
 * derives them from the route table (`reservedTuidsOf` in src/http/route-table.ts) and hands them over as
 * `DomainDeps.reservedTuids`; every place that first claims a TUID (REST, GraphQL, uplinks) asks this function.
 */
export function brokenNewTuidRule(tuid: string, reservedTuids: ReadonlySet<string>, field = 'tuid'): string | undefined {
  if (!isValidTuid(tuid)) return `${field} ${tuidRuleInWords}`;
  if (reservedTuids.has(tuid)) {
    return `${field} ${tuid} is reserved: the API uses it as a fixed path segment where a TUID goes (reserved: ${[...reservedTuids].sort().join(', ')}); choose another TUID`;
  }
  return undefined;
}
