import type { Logger } from '../../observability/logger.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { InstanceDetails, InstanceRecord } from './instance-types.js';

/** How often an instance renews its row. */
export const heartbeatMs = 5_000;
/** An instance silent this long is shown as not live (three heartbeats missed). */
export const silentAfterMs = 3 * heartbeatMs;
/** A row silent this long is forgotten (a crashed instance does not stay listed for ever). */
const forgetAfterMs = 60 * 60_000;

/**
 * This process in the deployment's instance register: registered at start, renewed every `heartbeatMs` with
 * the figures `describe()` gives, removed at a clean stop. A failed heartbeat (store outage) is logged and the
 * next one tries again; the instance then shows as silent, which is what an operator should see.
 */
export class InstanceRegistry {
  private timer: NodeJS.Timeout | undefined;
  private beating: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: { store: Store; clock: Clock; logger: Logger },
    private readonly self: Omit<InstanceRecord, 'heartbeatAt' | 'details'>,
    private readonly describe: () => InstanceDetails,
  ) {}

  async start(): Promise<void> {
    await this.beat();
    this.timer = setInterval(() => {
      this.beating = this.beating
        .then(() => this.beat())
        .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'instance heartbeat failed'));
    }, heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
    await this.deps.store.instances
      .remove(this.self.id)
      .catch((error: unknown) => this.deps.logger.warn({ err: error }, 'instance deregistration failed'));
  }

  private async beat(): Promise<void> {
    const now = this.deps.clock.now();
    await this.deps.store.instances.heartbeat({ ...this.self, heartbeatAt: now, details: this.describe() });
    await this.deps.store.instances.prune(now - forgetAfterMs);
  }
}

/**
 * Instances register where several can share the store, PostgreSQL; one process serves a SQLite file, and a
 * heartbeat write there would wait on the ingest writer's lock.
 */
export function keepsInstanceRegister(databaseUrl: string): boolean {
  return !databaseUrl.startsWith('file:');
}

export interface InstanceStatus extends InstanceRecord {
  /** Heard from within `silentAfterMs`. */
  live: boolean;
  /** The cluster leases it holds now (the alert engine's, its consumer slots, its member lease). */
  leases: string[];
}

/** The ids of the instances heard from within `silentAfterMs` (the live relay takes batches from these only). */
export async function liveInstanceIds(deps: { store: Store; clock: Clock }): Promise<string[]> {
  const now = deps.clock.now();
  return (await deps.store.instances.list())
    .filter((instance) => now - instance.heartbeatAt <= silentAfterMs)
    .map((instance) => instance.id);
}

/** The deployment as the store sees it: every registered instance, live or silent, with the leases it holds. */
export async function deploymentStatus(deps: { store: Store; clock: Clock }): Promise<InstanceStatus[]> {
  const now = deps.clock.now();
  const [instances, leases] = await Promise.all([deps.store.instances.list(), deps.store.leases.listLive('', now)]);
  return instances.map((instance) => ({
    ...instance,
    live: now - instance.heartbeatAt <= silentAfterMs,
    leases: leases
      .filter((lease) => lease.holder === instance.id)
      .map((lease) => lease.name)
      .sort(),
  }));
}
