/**
 * Every message id of seed 002, in id order. This array is the single source of truth: validation,
 * TypeScript types, examples, the catalog endpoints and docs/catalog.md are all derived from it.
 */
import type { MessageDefinition } from '../types.js';
import { commonBeaconDefinitions } from './common-beacon.js';
import { commonCellularDefinitions } from './common-cellular.js';
import { commonConfigurationDefinitions } from './common-configuration.js';
import { commonDiagnosticsDefinitions } from './common-diagnostics.js';
import { commonFirmwareDefinitions } from './common-firmware.js';
import { commonMeshDefinitions } from './common-mesh.js';
import { commonNetworkDefinitions } from './common-network.js';
import { commonSystemDefinitions } from './common-system.js';
import { environmentConfigurationDefinitions } from './environment-configuration.js';
import { environmentDataDefinitions } from './environment-data.js';

export const messageDefinitions = [
  ...commonSystemDefinitions,
  ...commonNetworkDefinitions,
  ...commonBeaconDefinitions,
  ...commonCellularDefinitions,
  ...commonMeshDefinitions,
  ...commonFirmwareDefinitions,
  ...commonDiagnosticsDefinitions,
  ...commonConfigurationDefinitions,
  ...environmentDataDefinitions,
  ...environmentConfigurationDefinitions,
] as const satisfies readonly MessageDefinition[];

/** Freezes nested data, so a consumer that edits a served definition cannot change the rules. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}

deepFreeze(messageDefinitions);
