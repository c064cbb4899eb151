/**
 * How a virtual device answers the commands the platform sends it (seed 002 part 6): configurations are applied
 * and echoed with event 31, a 1101 gets the requested message with event 33 or a 1102, a remote command is
 * answered as unsupported. No I/O: the gateway publishes whatever this returns.
 */
import { isConfigurationReadRequest, validateDownlink } from '../catalog/index.js';
import type { DeviceUplink, VirtualDevice } from './virtual-device.js';

/**
 * Ids the device treats as configuration: the seed's event-30 messages plus those whose event it does not show
 * but whose notes call for the event-31 echo. Firmware, diagnostics, reset and identification requests are not
 * configurations and get no echo.
 */
const configurationTsmIds: ReadonlySet<number> = new Set([
  1206, 1207, 1208, 1500, 1501, 1502, 1503, 1504, 1505, 12200, 12210, 12211, 12212, 13200,
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function numberField(command: Record<string, unknown>, name: string): number | undefined {
  const value = command[name];
  return typeof value === 'number' ? value : undefined;
}

/** Updates the device state a configuration controls; ids with no simulated effect are only echoed. */
function applyConfiguration(device: VirtualDevice, command: Record<string, unknown>, now: number): void {
  const config = device.configuration;
  const value = (name: string) => numberField(command, name);
  switch (command['tsmId']) {
    case 1500:
      device.applyIntervals(now, { measurementInterval: value('measurementInterval'), reportInterval: value('reportInterval') });
      return;
    case 1504:
      if (value('enabled') !== undefined) config.lowPowerStorage = value('enabled') === 1;
      return;
    case 12200:
      // validateDownlink has checked each mode against its value set, so the casts cannot widen the state.
      if (value('accelerometerMode') !== undefined) config.accelerometerMode = value('accelerometerMode') as 0 | 1 | 2;
      if (value('weatherMode') !== undefined) config.weatherMode = value('weatherMode') as -1 | 0;
      if (value('hallMode') !== undefined) config.hallMode = value('hallMode') as -1 | 0 | 1;
      if (value('leakageMode') !== undefined) config.leakageMode = value('leakageMode') as 0 | 1;
      return;
    // The per-sensor configurations switch the same sensors as 12200, in their own terms.
    case 12210:
      if (value('weatherMode') !== undefined) config.weatherMode = value('weatherMode') === 0 ? -1 : 0;
      return;
    case 12211:
      if (value('hallMode') !== undefined) config.hallMode = value('hallMode') === 0 ? -1 : 1;
      return;
    case 12212:
      if (value('leakageMode') !== undefined) config.leakageMode = value('leakageMode') === 1 ? 1 : 0;
      return;
  }
}

/** The echo of an accepted configuration: its own fields, addressed from the device, with event 31. */
function echoConfiguration(device: VirtualDevice, command: Record<string, unknown>, now: number): DeviceUplink {
  const { tsmDstTuid: _destination, tsmEv: _event, tsmTs: _sentAt, ...fields } = command;
  // The command passed validateDownlink, so its fields are those of a catalog message of this id.
  return { ...fields, tsmEv: 31, ...device.envelope(now) } as DeviceUplink;
}

function answerInformationRequest(device: VirtualDevice, command: Record<string, unknown>, now: number): DeviceUplink {
  const transactionId = numberField(command, 'transactionId');
  const tracking = transactionId === undefined ? {} : { transactionId };
  const requested = device.produce(command['requestTsmId'] as number, now);
  if (requested === undefined) return { tsmId: 1102, ...device.envelope(now), ...tracking };
  return { ...requested, tsmEv: 33, ...tracking };
}

/** One command's answer, or undefined when the device stays silent. */
function respondToCommand(device: VirtualDevice, command: Record<string, unknown>, now: number): DeviceUplink | undefined {
  const destination = command['tsmDstTuid'];
  if (destination !== undefined && destination !== device.tuid) return undefined;
  // A device refuses what it cannot parse: no echo, as for a configuration that was not accepted.
  if (validateDownlink(command).length > 0) return undefined;
  const tsmId = command['tsmId'] as number;
  const transactionId = numberField(command, 'transactionId');
  if (tsmId === 1101) return answerInformationRequest(device, command, now);
  if (transactionId === undefined) return undefined;
  if (tsmId === 1402) {
    return { tsmId: 1402, tsmEv: 36, ...device.envelope(now), result: -2, payload: 'unsupported command', transactionId };
  }
  if (!configurationTsmIds.has(tsmId)) return undefined;
  if (isConfigurationReadRequest(command)) return device.environmentConfiguration(now, transactionId);
  applyConfiguration(device, command, now);
  return echoConfiguration(device, command, now);
}

/**
 * The uplink messages `device` sends in answer to `commands` (the parsed payload of its downlink topic), in
 * order, applying each accepted configuration to the device as it goes:
 * - a configuration (1500, 1501-1505, 1206-1208, 12200 and 12210-12212, 13200) with a transactionId is applied
 *   and echoed: same tsmId and fields without tsmDstTuid, tsmEv 31, the device's tsmTuid and tsmGw, tsmTs now;
 * - a 12200 read request (identifiers only) answers the current 12200 modes with event 31;
 * - a 1101 answers the requested message with event 33, or 1102 when the device cannot supply it;
 * - a 1402 remote command answers result -2 (unsupported) with event 36.
 * Commands addressed (tsmDstTuid) to another device, invalid ones and any other id get no answer. `now` is
 * milliseconds since epoch.
 */
export function respondToCommands(device: VirtualDevice, commands: readonly unknown[], now: number): DeviceUplink[] {
  const answers: DeviceUplink[] = [];
  for (const command of commands) {
    if (!isRecord(command)) continue;
    const answer = respondToCommand(device, command, now);
    if (answer !== undefined) answers.push(answer);
  }
  return answers;
}
