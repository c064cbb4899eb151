/** A deployment group of one organization. Ids are unique per organization, case-sensitive. */
export interface Group {
  organizationId: string;
  groupId: string;
  description: string | null;
  createdAt: number;
}

/** A group as listed: with the number of the organization's things in it. */
export interface GroupListing {
  /** null: the pseudo-group `unassigned` (things in no group). */
  groupId: string | null;
  description: string | null;
  thingCount: number;
  /** null for the pseudo-group, which was never created. */
  createdAt: number | null;
}
