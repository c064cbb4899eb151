import type { Labels } from './thing-labels.js';

/** Installation states of seed 000 part 3. */
export const installationStatuses = ['new', 'installed', 'uninstalled', 'quarantine', 'retired'] as const;
export type InstallationStatus = (typeof installationStatuses)[number];

/** A thing as the domain sees it: ownership, group, installation status and the summary derived from uplinks. */
export interface Thing {
  tuid: string;
  organizationId: string;
  /** null: in no group (shown as `unassigned`). */
  groupId: string | null;
  installationStatus: InstallationStatus;
  createdAt: number;
  summary: ThingSummary;
  /** Arrival of the newest message on the platform's clock (ms), and the gateway it came through. */
  lastHeardAt: number | null;
  lastHeardGatewayTuid: string | null;
  /** At most 200 characters; null when unset (SPEC section 12). */
  name: string | null;
  /** Key to value, `{}` when none (SPEC section 12). */
  labels: Labels;
}

export interface ThingSummary {
  /** tsmTs of the newest message of any id (Unix seconds). */
  timestamp: number | null;
  gatewayTuid: string | null;
  /** Exact `batl` of the newest 1110; presenters round it. */
  batteryLevel: number | null;
  /** `swVersion` of the newest 1100. */
  version: string | null;
  location: { lat: number; lon: number } | null;
}

/**
 * What changed on a thing, field by field, as the import plan and the `thingChanged` event state it: the fields of
 * the import file and of REST (`name`, `labels`, `group_id` with `unassigned` for none, `installation_status`).
 * `from` is null for a thing that did not exist before.
 */
export interface ThingChanges {
  name?: { from: string | null; to: string | null };
  labels?: { from: Labels | null; to: Labels };
  group_id?: { from: string | null; to: string };
  installation_status?: { from: InstallationStatus | null; to: InstallationStatus };
}
