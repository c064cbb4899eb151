/**
 * Who is in a simulated fleet: gateway and device TUIDs, which devices sit behind which gateway and who hears
 * whom. Names carry a prefix so two simulators on one broker (or one platform) never share a TUID.
 */
import { VirtualDevice } from './virtual-device.js';

/** A TUID prefix leaves room for the longest suffix ("-GW-0001", "-0001-0001") within the 64-character TUID rule. */
export const tuidPrefixPattern = /^[A-Za-z0-9._:-]{1,40}$/;

function pad(index: number): string {
  return String(index).padStart(4, '0');
}

/** `SIM-GW-0001` for prefix SIM and the first gateway (1-based). */
export function gatewayTuidFor(prefix: string, gatewayIndex: number): string {
  return `${prefix}-GW-${pad(gatewayIndex)}`;
}

/** `SIM-0001-0003` for the third device (1-based) behind the first gateway. */
export function deviceTuidFor(prefix: string, gatewayIndex: number, deviceIndex: number): string {
  return `${prefix}-${pad(gatewayIndex)}-${pad(deviceIndex)}`;
}

export interface GatewayLayout {
  gatewayTuid: string;
  devices: VirtualDevice[];
}

/**
 * Spreads `deviceCount` devices over `gatewayCount` gateways as evenly as possible (the first gateways take the
 * remainder). Each device hears the devices before and after it on its gateway (1202), and every fourth has a
 * cellular location (1210). Throws RangeError for a prefix that would make invalid TUIDs.
 */
export function layOutFleet(prefix: string, gatewayCount: number, deviceCount: number, reportsAfterTs = 0): GatewayLayout[] {
  if (!tuidPrefixPattern.test(prefix)) {
    throw new RangeError('the TUID prefix must be 1 to 40 letters, digits or . _ : - characters');
  }
  const base = Math.floor(deviceCount / gatewayCount);
  const remainder = deviceCount % gatewayCount;
  const layout: GatewayLayout[] = [];
  for (let gatewayIndex = 1; gatewayIndex <= gatewayCount; gatewayIndex += 1) {
    const gatewayTuid = gatewayTuidFor(prefix, gatewayIndex);
    const count = base + (gatewayIndex <= remainder ? 1 : 0);
    const tuids = Array.from({ length: count }, (_unused, index) => deviceTuidFor(prefix, gatewayIndex, index + 1));
    const devices = tuids.map(
      (tuid, index) =>
        new VirtualDevice({
          tuid,
          gatewayTuid,
          neighbours: [tuids[index - 1], tuids[index + 1]].filter((neighbour): neighbour is string => neighbour !== undefined),
          hasLocation: index % 4 === 0,
          reportsAfterTs,
        }),
    );
    layout.push({ gatewayTuid, devices });
  }
  return layout;
}
