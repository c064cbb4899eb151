import { shownGroupId } from '../groups/unassigned-group.js';

/**
 * A stored message as clients see it (REST, GraphQL, data feed): the JSON received plus `deploymentGroupId`, the
 * thing's group when it arrived. Spliced into the stored text rather than re-serialized: the body is already the
 * object's JSON, and this runs for every message read or fed. Should a device have sent its own
 * `deploymentGroupId`, ours comes last and wins when parsed.
 */
export function messageJsonWithGroup(body: string, groupId: string | null): string {
  const group = JSON.stringify(shownGroupId(groupId));
  return body === '{}' ? `{"deploymentGroupId":${group}}` : `${body.slice(0, -1)},"deploymentGroupId":${group}}`;
}
