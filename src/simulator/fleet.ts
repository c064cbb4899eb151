/**
 * A fleet of virtual gateways and sensors against one broker. One timer paces the whole fleet (handing out
 * whole batches to gateways in turn) and one reports progress; acknowledgements drive everything else, so 10,000
 * devices cost no more timers than 10.
 */
import { randomBytes } from 'node:crypto';
import { layOutFleet } from './fleet-layout.js';
import type { FleetCounts, FleetHandle, FleetOptions, FleetProgress, FleetReport } from './fleet-types.js';
import { LatencyRecorder } from './latency-recorder.js';
import { isUnsupportedProtocolVersion, type ProtocolVersion } from './mqtt-connection.js';
import { VirtualGateway, type MessageBudget } from './virtual-gateway.js';

export type { FleetCounts, FleetHandle, FleetOptions, FleetProgress, FleetReport } from './fleet-types.js';

const paceIntervalMs = 50;

/** The `messages` stop condition: claimed messages are sent or given back, so none is counted twice. */
class FleetBudget implements MessageBudget {
  constructor(public remaining: number) {}
  claim(wanted: number): number {
    const granted = Math.min(wanted, this.remaining);
    this.remaining -= granted;
    return granted;
  }
  release(count: number): void {
    this.remaining += count;
  }
}

function checkOptions(options: FleetOptions): void {
  const positiveInteger = (value: number | undefined, name: string) => {
    if (value !== undefined && (!Number.isInteger(value) || value < 1)) throw new RangeError(`${name} must be a positive integer`);
  };
  positiveInteger(options.gateways, 'gateways');
  positiveInteger(options.devices, 'devices');
  positiveInteger(options.batchSize, 'batchSize');
  positiveInteger(options.maxInFlight, 'maxInFlight');
  positiveInteger(options.messages, 'messages');
  if (!(options.rate >= 0) || !Number.isFinite(options.rate)) throw new RangeError('rate must be 0 or a positive number');
  if (options.durationS !== undefined && !(options.durationS >= 0)) throw new RangeError('durationS must be 0 or more');
}

function sumCounts(gateways: readonly VirtualGateway[]): FleetCounts & { inFlight: number } {
  const totals = {
    publishes: 0,
    publishesAcked: 0,
    messagesSent: 0,
    messagesAcked: 0,
    commandsReceived: 0,
    responsesSent: 0,
    errors: 0,
    inFlight: 0,
  };
  for (const gateway of gateways) {
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += gateway.stats[key];
  }
  return totals;
}

/**
 * Connects every gateway (rejecting, with nothing left open, if any cannot connect or subscribe), then starts
 * sending. The fleet stops by itself after `durationS` or once `messages` are sent and settled; otherwise it runs
 * until `stop()`. Throws RangeError for impossible options.
 */
export async function startFleet(options: FleetOptions): Promise<FleetHandle> {
  checkOptions(options);
  const layout = layOutFleet(options.tuidPrefix ?? 'SIM', options.gateways, options.devices, options.reportsAfterTs);
  const budget = new FleetBudget(options.messages ?? Number.POSITIVE_INFINITY);
  const latencies = new LatencyRecorder();
  const clientIdPrefix = options.clientIdPrefix ?? `thingdesk-sim-${randomBytes(3).toString('hex')}`;
  let stopping = false;
  let held = false;
  let startedAt = 0;
  let lastSettledAt = 0;
  let stopRequestedAt = 0;

  const build = (protocolVersion: ProtocolVersion) =>
    layout.map(
      ({ gatewayTuid, devices }) =>
        new VirtualGateway({
          url: options.url,
          username: options.username,
          password: options.password,
          organizationId: options.organizationId,
          gatewayTuid,
          devices,
          clientId: `${clientIdPrefix}-${gatewayTuid}`,
          qos: options.qos ?? 1,
          protocolVersion,
          batchSize: options.batchSize ?? 1,
          singleObject: options.singleObject ?? false,
          maxInFlight: options.maxInFlight ?? 100,
          budget,
          latencies,
          onSettled,
          onError: options.onError,
        }),
    );

  function onSettled(gateway: VirtualGateway): void {
    lastSettledAt = performance.now();
    if (stopping || held) return;
    gateway.pump();
    if (budget.remaining === 0 && gateways.every((candidate) => candidate.stats.inFlight === 0)) void stop();
  }

  // Learn the protocol version on the first gateway, so a 3.1.1-only broker is not asked for 5 a hundred times.
  let protocolVersion: ProtocolVersion = options.protocolVersion ?? 5;
  let gateways = build(protocolVersion);
  try {
    await gateways[0]!.start();
  } catch (error) {
    if (options.protocolVersion !== undefined || !isUnsupportedProtocolVersion(error)) throw error;
    protocolVersion = 4;
    gateways = build(protocolVersion);
    await gateways[0]!.start();
  }
  const others = await Promise.allSettled(gateways.slice(1).map((gateway) => gateway.start()));
  const failure = others.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
  if (failure !== undefined) {
    await Promise.all(gateways.map((gateway) => gateway.stop(0)));
    throw failure.reason;
  }

  const sending = gateways.filter((gateway) => gateway.deviceCount > 0);
  const batchSize = options.batchSize ?? 1;
  let handedOut = 0;
  let turn = 0;
  const pace = () => {
    if (held) return;
    if (options.rate === 0) {
      // Acknowledgements drive sending; this only wakes gateways whose devices were all asleep or not yet due.
      for (const gateway of sending) gateway.pump();
    } else {
      const owed = Math.floor((options.rate * (performance.now() - startedAt)) / 1000) - handedOut;
      // Whole batches only, except for the last messages of a `messages` budget.
      const unit = Math.max(1, Math.min(batchSize, budget.remaining));
      for (let given = 0; given + unit <= owed; given += unit) {
        const gateway = sending[turn % sending.length]!;
        turn += 1;
        gateway.allowance += unit;
        handedOut += unit;
        gateway.pump();
      }
    }
    if (budget.remaining === 0 && gateways.every((gateway) => gateway.stats.inFlight === 0)) void stop();
  };

  let previousAcked = 0;
  let previousAt = 0;
  const progress = (): FleetProgress => {
    const now = performance.now();
    const totals = sumCounts(gateways);
    const intervalS = (now - previousAt) / 1000;
    const messagesPerSecond = intervalS > 0 ? Math.round(((totals.messagesAcked - previousAcked) / intervalS) * 10) / 10 : 0;
    return { ...totals, elapsedS: Math.round((now - startedAt) / 100) / 10, messagesPerSecond };
  };
  const reportProgress = () => {
    const current = progress();
    previousAcked = current.messagesAcked;
    previousAt = performance.now();
    options.onProgress?.(current);
  };

  let resolveFinished: (report: FleetReport) => void = () => undefined;
  const finished = new Promise<FleetReport>((resolve) => (resolveFinished = resolve));
  startedAt = performance.now();
  previousAt = startedAt;
  if (options.rate === 0) for (const gateway of sending) gateway.allowance = Number.POSITIVE_INFINITY;
  const paceTimer = setInterval(pace, paceIntervalMs);
  const progressTimer = setInterval(reportProgress, options.progressIntervalMs ?? 1000);
  const durationTimer = options.durationS ? setTimeout(() => void stop(), options.durationS * 1000) : undefined;
  pace();

  async function stop(): Promise<FleetReport> {
    if (stopping) return finished;
    stopping = true;
    stopRequestedAt = performance.now();
    clearInterval(paceTimer);
    clearInterval(progressTimer);
    clearTimeout(durationTimer);
    await Promise.all(gateways.map((gateway) => gateway.stop(options.drainTimeoutMs ?? 5000)));
    const totals = sumCounts(gateways);
    const durationS = Math.max(0.001, (Math.max(stopRequestedAt, lastSettledAt) - startedAt) / 1000);
    const { inFlight: _inFlight, ...counts } = totals;
    resolveFinished({
      gateways: gateways.length,
      devices: options.devices,
      ...counts,
      durationS: Math.round(durationS * 1000) / 1000,
      messagesPerSecond: Math.round((counts.messagesAcked / durationS) * 10) / 10,
      ackLatencyMs: latencies.summarize(),
    });
    return finished;
  }

  const hold = (value: boolean) => {
    if (value === held) return;
    held = value;
    // A fleet held back owes nothing for the time it was held: it resumes at its rate, not with a burst.
    if (!held && options.rate > 0) handedOut = Math.floor((options.rate * (performance.now() - startedAt)) / 1000);
    if (!held && !stopping) pace();
  };

  return {
    gatewayTuids: layout.map((entry) => entry.gatewayTuid),
    deviceTuids: layout.flatMap((entry) => entry.devices.map((device) => device.tuid)),
    protocolVersion,
    finished,
    progress,
    lastReportTs: () => Math.max(0, ...layout.flatMap((entry) => entry.devices.map((device) => device.lastReportedTs))),
    hold,
    stop,
  };
}

/** Runs a fleet to its stop condition (`durationS` or `messages`) and resolves with its report. */
export async function runFleet(options: FleetOptions): Promise<FleetReport> {
  const fleet = await startFleet(options);
  return fleet.finished;
}
