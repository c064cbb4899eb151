/**
 * Keeps a fleet a bounded number of messages ahead of the platform. An external broker acknowledges a publish on
 * receipt, so a fleet sending as fast as acknowledgements allow runs arbitrarily far ahead of the platform: the
 * broker's queue grows until its limit drops messages, and the simulator and the broker burn the CPU the platform
 * and PostgreSQL would have used. Measuring what the platform can take in needs a backlog that never runs dry and
 * never overflows: the fleet is held while the platform is more than `high` messages behind, and let go again
 * below `low`, as acknowledgements after commit do on the embedded broker.
 */
import type { FleetHandle } from '../../src/simulator/index.js';
import { scrapeMetrics } from '../lib/prometheus.js';

export interface BacklogBounds {
  high: number;
  low: number;
}

/** Messages the platform has taken from the broker (stored, duplicates and dead letters) since it started. */
export async function receivedByPlatform(metricsUrl: string): Promise<number> {
  return (await scrapeMetrics(metricsUrl)).get('thingdesk_ingest_received_total') ?? 0;
}

// The platform's count is scraped as often as it answers; the fleet's own count is checked far more often against
// the last scrape, so a slow scrape (a busy platform answers late) can only hold the fleet early, never late.
const scrapeMs = 200;
const checkMs = 10;

export class BacklogGovernor {
  private scrapeTimer: NodeJS.Timeout | undefined;
  private checkTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private received = 0;
  /** Longest backlog seen, to show the bound held. */
  peak = 0;

  /**
   * `ackedBefore`: messages of earlier fleets this one follows (the warm-up) that the platform had not received
   * when `receivedAtStart` was read. Backlog = everything acknowledged since then - everything received since then.
   */
  constructor(
    private readonly fleet: FleetHandle,
    private readonly metricsUrl: string,
    private readonly bounds: BacklogBounds,
    private readonly receivedAtStart: number,
    private readonly ackedBefore: number,
  ) {}

  start(): this {
    this.scrapeTimer = setInterval(() => void this.scrape(), scrapeMs);
    this.checkTimer = setInterval(() => this.check(), checkMs);
    return this;
  }

  stop(): void {
    clearInterval(this.scrapeTimer);
    clearInterval(this.checkTimer);
    this.fleet.hold(false);
  }

  private check(): void {
    // Sent rather than acknowledged: what is on its way to the broker counts too.
    const backlog = this.ackedBefore + this.fleet.progress().messagesSent - this.received;
    this.peak = Math.max(this.peak, backlog);
    if (backlog > this.bounds.high) this.fleet.hold(true);
    else if (backlog < this.bounds.low) this.fleet.hold(false);
  }

  private async scrape(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      this.received = (await receivedByPlatform(this.metricsUrl)) - this.receivedAtStart;
    } catch {
      // A missed scrape leaves the last count, which only overstates the backlog.
    } finally {
      this.polling = false;
    }
  }
}
