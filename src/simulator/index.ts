/**
 * The device simulator (`thingdesk simulate`, tests, `npm run bench:ingest`): virtual gateways and sensors that
 * send catalog messages over MQTT and answer commands with their echo.
 */
export { runFleet, startFleet } from './fleet.js';
export type { FleetCounts, FleetHandle, FleetOptions, FleetProgress, FleetReport } from './fleet-types.js';
export { deviceTuidFor, gatewayTuidFor, layOutFleet, tuidPrefixPattern } from './fleet-layout.js';
export { VirtualDevice } from './virtual-device.js';
export type { DeviceConfiguration, DeviceUplink, VirtualDeviceOptions } from './virtual-device.js';
export { respondToCommands } from './command-responder.js';
export type { ProtocolVersion, QoS } from './mqtt-connection.js';
export type { LatencySummary } from './latency-recorder.js';
