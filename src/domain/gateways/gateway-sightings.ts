import type { Store } from '../../store/store.js';

/** A gateway's credential is written again after this long, even unchanged. */
const rewriteAfterMs = 5 * 60_000;
/** Remembered gateways at most; past this the memory starts over (a write each, once). */
const rememberedMax = 100_000;

/**
 * Which MQTT credential each gateway last published with (SPEC section 16's `mqtt_username`). Ingest tells it of
 * every stored payload; it writes only what changed, or every few minutes, so a busy gateway costs no write per
 * uplink. A failed write is logged and retried with the next payload; it never fails the ingest.
 */
export class GatewaySightings {
  private readonly written = new Map<string, { username: string | null; at: number }>();

  constructor(
    private readonly deps: {
      store: Pick<Store, 'gateways'>;
      clock: { now(): number };
      logger: { error(details: object, message: string): void };
    },
  ) {}

  /** A payload from `gatewayTuid` published with `username` was stored. */
  record(organizationId: string, gatewayTuid: string, username: string | null): void {
    const key = `${organizationId}\n${gatewayTuid}`;
    const now = this.deps.clock.now();
    const last = this.written.get(key);
    if (last && last.username === username && now - last.at < rewriteAfterMs) return;
    if (this.written.size >= rememberedMax) this.written.clear();
    this.written.set(key, { username, at: now });
    this.deps.store.gateways.recordSighting(organizationId, gatewayTuid, username, now).catch((error: unknown) => {
      this.written.delete(key);
      this.deps.logger.error({ err: error }, 'recording a gateway sighting failed');
    });
  }
}
