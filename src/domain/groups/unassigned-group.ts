/**
 * The pseudo-group of the things in no group. A thing's `groupId` is null in the store and the domain; every
 * interface (REST, GraphQL, the data feed, stored messages) shows it under this name.
 */
export const unassignedGroupId = 'unassigned';

/** The group id an interface shows for `groupId`: the id itself, or `unassigned` for none (null). */
export function shownGroupId(groupId: string | null): string {
  return groupId ?? unassignedGroupId;
}
