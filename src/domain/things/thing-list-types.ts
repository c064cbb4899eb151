/**
 * The keys the things list sorts by (SPEC section 16), as clients spell them (`sort=last_seen:desc`); each has its
 * column in `src/store/things-store.ts` (`thingSortColumns`). `name` orders by code point (the bytes of its UTF-8),
 * the same on both stores, with things without a name last in either direction.
 */
export const thingSortKeys = ['tuid', 'name', 'last_seen', 'battery_level', 'installation_status'] as const;
export type ThingSortKey = (typeof thingSortKeys)[number];
export type SortDirection = 'asc' | 'desc';

export interface ThingSort {
  key: ThingSortKey;
  direction: SortDirection;
}

/** Where the next page continues: after the thing with this sort value and TUID. */
export interface ThingListPosition {
  value: string | number | null;
  tuid: string;
}

/** The store's filter of a things list; every field narrows. */
export interface ThingListFilter {
  /** null lists the things in no group. */
  groupId?: string | null;
  installationStatus?: string;
  /** Case-insensitive substring of the TUID. */
  q?: string;
  /** true: only things with an active alert; false: only things without one. */
  alerting?: boolean;
  /** Only things last heard through this gateway. */
  gatewayTuid?: string;
  /** Only things whose battery level is known and below this percent. */
  batteryBelow?: number;
  /** Only things not heard since this instant (ms), or never heard. */
  silentBefore?: number;
  /** Only things with every one of these labels. */
  labels?: readonly { key: string; value: string }[];
  /** Default: by TUID, ascending. */
  sort?: ThingSort;
  /** Continue after this thing in the sort's order (with the default sort, `value` is the TUID). */
  after?: ThingListPosition;
  limit: number;
}
