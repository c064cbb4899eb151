import type { Logger } from '../observability/logger.js';
import type { LeasesStore } from '../store/leases-store.js';

/** What a slot runs: one consumer session, stopped by draining what it holds. */
export interface SlotConsumer {
  stop(): Promise<void>;
}

export interface ConsumerSlotsOptions {
  /** Consumer sessions of the whole deployment (MQTT_CONSUMER_SLOTS); every instance must use the same number. */
  slots: number;
  /** Names the deployment's leases (the shared subscription group). */
  group: string;
  /** This instance, unique per process. */
  instanceId: string;
  leases: Pick<LeasesStore, 'acquire' | 'release' | 'listLive'>;
  now: () => number;
  /** A holder that stops renewing loses its slots after this long; a live instance then takes them over. */
  leaseTtlMs: number;
  /** How often leases are renewed and the share of slots recomputed. */
  scanMs: number;
  startConsumer(slot: number): Promise<SlotConsumer>;
  logger: Logger;
}

/**
 * Shares the deployment's consumer sessions among its live instances. A session is named by its slot number, not
 * by the host, so a restarted or rescheduled instance finds the same sessions, and no session is ever left without
 * a consumer while one instance lives: each slot is held through a lease in the store (as the alert engine's), a
 * slot whose holder died is taken over once its lease expires, and the taker resumes the session (client id) with
 * whatever the broker queued for it. Instances balance: each takes up to its share and gives back, drained, what
 * exceeds it when another instance joins. Shares are whole slots that add up to the total: the live instances,
 * ordered by id, take slots / instances each and the first (slots mod instances) one more, so 4 slots over 3
 * instances are 2 + 1 + 1 (rounding every share up would give 2 + 2 + 0 and leave an instance idle). Every instance
 * renews a member lease, so one that holds no slot yet still counts. More instances than slots leave the rest idle.
 */
export class ConsumerSlots {
  private readonly held = new Map<number, SlotConsumer>();
  private timer: NodeJS.Timeout | undefined;
  private scanning: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(private readonly options: ConsumerSlotsOptions) {}

  /** The slots this instance runs now. */
  get heldSlots(): number[] {
    return [...this.held.keys()].sort((a, b) => a - b);
  }

  async start(): Promise<void> {
    await this.scan();
    this.timer = setInterval(() => {
      this.scanning = this.scanning
        .then(() => this.scan())
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'MQTT consumer slot scan failed'));
    }, this.options.scanMs);
    this.timer.unref();
  }

  /** Drains and stops every consumer, then gives the slots back at once (no waiting for expiry elsewhere). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.scanning;
    await Promise.all(this.heldSlots.map((slot) => this.giveBack(slot)));
    await this.options.leases.release(this.memberLease(), this.options.instanceId).catch(() => undefined);
  }

  slotLease(slot: number): string {
    return `${this.slotPrefix()}${slot}`.slice(0, 100);
  }

  private memberLease(): string {
    return `${this.memberPrefix()}${this.options.instanceId}`.slice(0, 100);
  }

  // One spelling of each lease family, for the names and for listing them.
  private slotPrefix(): string {
    return `mqtt-slot:${this.options.group}:`;
  }

  private memberPrefix(): string {
    return `mqtt-member:${this.options.group}:`;
  }

  private async scan(): Promise<void> {
    if (this.stopped) return;
    const { leases, instanceId, leaseTtlMs, slots } = this.options;
    const now = this.options.now();
    await leases.acquire(this.memberLease(), instanceId, now, leaseTtlMs);
    for (const slot of this.heldSlots) {
      // A lease lost (this instance paused past its expiry and another took the slot over) stops the consumer.
      if (!(await leases.acquire(this.slotLease(slot), instanceId, now, leaseTtlMs))) await this.stopConsumer(slot);
    }
    const members = [...new Set((await leases.listLive(this.memberPrefix(), now)).map((lease) => lease.holder)).add(instanceId)].sort();
    const fair = shareOf(slots, members.length, members.indexOf(instanceId));
    if (this.held.size > fair) {
      for (const slot of this.heldSlots.slice(fair)) await this.giveBack(slot);
      return;
    }
    const taken = new Set((await leases.listLive(this.slotPrefix(), now)).map((lease) => lease.name));
    for (let slot = 0; slot < slots && this.held.size < fair && !this.stopped; slot++) {
      if (this.held.has(slot) || taken.has(this.slotLease(slot))) continue;
      if (!(await leases.acquire(this.slotLease(slot), instanceId, now, leaseTtlMs))) continue;
      try {
        this.held.set(slot, await this.options.startConsumer(slot));
      } catch (error) {
        this.options.logger.warn({ err: error, slot }, 'MQTT consumer slot could not start; left for another try');
        await leases.release(this.slotLease(slot), instanceId);
      }
    }
  }

  private async giveBack(slot: number): Promise<void> {
    await this.stopConsumer(slot);
    await this.options.leases.release(this.slotLease(slot), this.options.instanceId).catch(() => undefined);
  }

  private async stopConsumer(slot: number): Promise<void> {
    const consumer = this.held.get(slot);
    this.held.delete(slot);
    await consumer?.stop().catch((error: unknown) => this.options.logger.warn({ err: error, slot }, 'MQTT consumer stop failed'));
  }
}

/** The slots the instance of this rank (0-based, among `instances` ordered by id) takes: whole, adding up to `slots`. */
export function shareOf(slots: number, instances: number, rank: number): number {
  return Math.floor(slots / instances) + (rank < slots % instances ? 1 : 0);
}
