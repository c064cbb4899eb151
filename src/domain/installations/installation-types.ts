import type { InstallationStatus } from '../things/thing-types.js';

/** One entry of a thing's installation history: the status it moved to, when (ms) and on whose behalf. */
export interface InstallationEntry {
  status: InstallationStatus;
  timestamp: number;
  /** The caller's `responsible` (client id or user e-mail), or `uplink` for a thing first seen in an uplink. */
  responsible: string;
}
