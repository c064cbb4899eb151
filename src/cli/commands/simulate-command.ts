import type { Command } from 'commander';
import { loadConfig } from '../../config/config.js';
import { redactUrl } from '../../config/parsers.js';
import { invalidField } from '../../domain/errors.js';
import { checkOrganizationId } from '../../domain/identity/identity-rules.js';
import {
  startFleet,
  tuidPrefixPattern,
  type FleetHandle,
  type FleetOptions,
  type FleetProgress,
  type FleetReport,
} from '../../simulator/index.js';
import { printRecord, type CliIo } from '../cli-io.js';

interface SimulateOptions {
  url?: string;
  username?: string;
  password?: string;
  org: string;
  gateways: string;
  devices: string;
  rate: string;
  batch: string;
  duration: string;
  messages?: string;
  qos: string;
  tuidPrefix: string;
  maxInFlight: string;
  protocolVersion?: string;
  singleObject?: boolean;
  json?: boolean;
}

/** The broker to connect to, and what named it (printed, so a run never talks silently to another broker). */
interface BrokerChoice {
  url: string;
  source: string;
}

/**
 * Without --url, the platform's own broker as the same environment (and .env) configures it: MQTT_URL when the
 * platform uses an external broker, else the embedded broker on MQTT_PORT on this machine.
 */
function chooseBroker(url: string | undefined, env: CliIo['env']): BrokerChoice {
  if (url !== undefined) return { url, source: '--url' };
  const config = loadConfig(env);
  if (config.mqttUrl !== undefined) return { url: config.mqttUrl, source: 'MQTT_URL' };
  if (config.mqttPort === 0) {
    throw invalidField('--url', '--url is needed: MQTT_PORT is 0 (the platform picks a free port and logs it as mqttPort)');
  }
  const set = (env['MQTT_PORT'] ?? '').trim() !== '';
  return { url: `mqtt://127.0.0.1:${config.mqttPort}`, source: set ? 'MQTT_PORT' : 'the default MQTT_PORT' };
}

/** A whole number of at least `min`, or an AppError naming the option. */
function parseInteger(option: string, text: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min) {
    throw invalidField(option, `${option} must be a whole number of at least ${min}, not "${text}"`);
  }
  return value;
}

function parseChoice<T extends number>(option: string, text: string, choices: readonly T[]): T {
  const value = choices.find((choice) => String(choice) === text.trim());
  if (value === undefined) throw invalidField(option, `${option} must be one of ${choices.join(', ')}, not "${text}"`);
  return value;
}

/**
 * Turns the command line into fleet options, validating every value. `durationFromUser` tells an explicit
 * --duration from its default: with --messages alone, the message count is the only stop condition.
 */
function toFleetOptions(options: SimulateOptions, io: CliIo, durationFromUser: boolean, url: string): FleetOptions {
  const orgProblem = checkOrganizationId('--org', options.org);
  if (orgProblem !== undefined) throw invalidField(orgProblem.field, orgProblem.message);
  if (!tuidPrefixPattern.test(options.tuidPrefix)) {
    throw invalidField('--tuid-prefix', '--tuid-prefix must be 1 to 40 letters, digits or . _ : - characters');
  }
  const rate = Number(options.rate);
  if (options.rate.trim() === '' || !Number.isFinite(rate) || rate < 0) {
    throw invalidField('--rate', `--rate must be 0 (as fast as acknowledgements allow) or a positive number, not "${options.rate}"`);
  }
  const messages = options.messages === undefined ? undefined : parseInteger('--messages', options.messages, 1);
  const durationS = messages !== undefined && !durationFromUser ? 0 : parseInteger('--duration', options.duration, 0);
  return {
    url,
    username: options.username ?? io.env['BOOTSTRAP_MQTT_USERNAME'],
    password: options.password ?? io.env['BOOTSTRAP_MQTT_PASSWORD'],
    organizationId: options.org,
    gateways: parseInteger('--gateways', options.gateways, 1),
    devices: parseInteger('--devices', options.devices, 1),
    rate,
    batchSize: parseInteger('--batch', options.batch, 1),
    singleObject: options.singleObject ?? false,
    durationS,
    messages,
    qos: parseChoice('--qos', options.qos, [0, 1, 2] as const),
    tuidPrefix: options.tuidPrefix,
    maxInFlight: parseInteger('--max-in-flight', options.maxInFlight, 1),
    protocolVersion:
      options.protocolVersion === undefined ? undefined : parseChoice('--protocol-version', options.protocolVersion, [4, 5] as const),
  };
}

function describeProgress(progress: FleetProgress): string {
  return (
    `simulate: ${progress.elapsedS.toFixed(1)} s  sent ${progress.messagesSent}  acked ${progress.messagesAcked}  ` +
    `in flight ${progress.inFlight}  ${progress.messagesPerSecond} msg/s  commands ${progress.commandsReceived}  ` +
    `responses ${progress.responsesSent}  errors ${progress.errors}\n`
  );
}

/** The report as `key  value` lines: the nested latencies become three keys. */
function readableReport(report: FleetReport): Record<string, unknown> {
  const { ackLatencyMs, ...counts } = report;
  return { ...counts, ackLatencyP50Ms: ackLatencyMs.p50, ackLatencyP99Ms: ackLatencyMs.p99, ackLatencyMaxMs: ackLatencyMs.max };
}

/**
 * Stops the fleet on SIGINT or SIGTERM and still lets the report print; a second signal exits at once. The
 * listeners are removed when the run ends, so an in-process caller (tests) keeps its own signal handling.
 */
async function runUntilDone(fleet: FleetHandle): Promise<FleetReport> {
  const exitNow = () => process.exit(130);
  const onSignal = () => {
    process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    process.once('SIGINT', exitNow).once('SIGTERM', exitNow);
    void fleet.stop();
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
  try {
    return await fleet.finished;
  } finally {
    for (const listener of [onSignal, exitNow]) process.off('SIGINT', listener).off('SIGTERM', listener);
  }
}

/** Connects the fleet; a failure names the broker and what to change, since the bare socket error does neither. */
async function connectFleet(options: FleetOptions, broker: BrokerChoice): Promise<FleetHandle> {
  try {
    return await startFleet(options);
  } catch (error) {
    if (error instanceof RangeError) throw error;
    const change =
      broker.source === '--url'
        ? 'check --url'
        : `the URL came from ${broker.source}: set --url, or MQTT_PORT / MQTT_URL as the platform has them`;
    throw new Error(
      `cannot connect to ${redactUrl(options.url)}: ${(error as Error).message} (${change}; --username/--password for credentials)`,
      {
        cause: error,
      },
    );
  }
}

/**
 * `thingdesk simulate`: a fleet of virtual gateways and sensors sending catalog messages to a broker and
 * answering commands with their echo, until --duration, --messages or SIGINT/SIGTERM; then prints the report.
 */
export function registerSimulateCommand(program: Command, io: CliIo): void {
  program
    .command('simulate')
    .description('run virtual gateways and sensors that publish catalog messages and answer commands')
    .option('--url <mqttUrl>', "broker URL (default: the platform's own: MQTT_URL, else mqtt://127.0.0.1:MQTT_PORT)")
    .option('--username <username>', 'gateway MQTT username (default: BOOTSTRAP_MQTT_USERNAME)')
    .option('--password <password>', 'gateway MQTT password (default: BOOTSTRAP_MQTT_PASSWORD)')
    .option('--org <organizationId>', 'organization id of the topics', 'thingdesk-org')
    .option('--gateways <count>', 'virtual gateways, one MQTT connection each', '2')
    .option('--devices <count>', 'virtual sensors in total, spread over the gateways', '10')
    .option('--rate <perSecond>', 'messages per second for the whole fleet; 0 = as fast as acknowledgements allow', '10')
    .option('--batch <count>', 'messages per publish (a JSON array)', '1')
    .option('--single-object', 'with --batch 1, publish a bare JSON object instead of a one-element array')
    .option('--duration <seconds>', 'stop after this many seconds; 0 = until SIGINT (unlimited when only --messages is given)', '60')
    .option('--messages <count>', 'stop after this many messages are sent and settled')
    .option('--qos <qos>', 'QoS of uplink publishes: 0, 1 or 2', '1')
    .option('--tuid-prefix <prefix>', 'prefix of gateway and device TUIDs, so two simulators never collide', 'SIM')
    .option('--max-in-flight <count>', 'unacknowledged publishes per gateway', '100')
    .option('--protocol-version <version>', 'MQTT protocol version 4 or 5 (default: 5, falling back to 4 if refused)')
    .option('--json', 'print no progress and the report as one JSON object')
    .action(async (options: SimulateOptions, command: Command) => {
      const broker = chooseBroker(options.url, io.env);
      const fleetOptions = toFleetOptions(options, io, command.getOptionValueSource('duration') === 'cli', broker.url);
      const json = options.json === true;
      if (!json) io.stderr(`simulate: connecting to ${redactUrl(broker.url)} (from ${broker.source})\n`);
      const errorsSeen = new Set<string>();
      const fleet = await connectFleet(
        {
          ...fleetOptions,
          onProgress: json ? undefined : (progress) => io.stderr(describeProgress(progress)),
          // Each distinct error once: a broker refusing every publish would otherwise flood the terminal.
          onError: (error, gatewayTuid) => {
            if (errorsSeen.has(error.message)) return;
            errorsSeen.add(error.message);
            io.stderr(`simulate: ${gatewayTuid}: ${error.message}\n`);
          },
        },
        broker,
      );
      if (!json) {
        io.stderr(
          `simulate: ${fleet.gatewayTuids.length} gateways, ${fleetOptions.devices} devices connected to ${redactUrl(fleetOptions.url)} ` +
            `(MQTT ${fleet.protocolVersion === 5 ? '5' : '3.1.1'}), publishing to thingdesk/${fleetOptions.organizationId}/up/...\n`,
        );
      }
      const report = await runUntilDone(fleet);
      if (json) printRecord(io, 'Simulation report', { ...report }, true);
      else printRecord(io, 'Simulation report', readableReport(report), false);
    });
}
