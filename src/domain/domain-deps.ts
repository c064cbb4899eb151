import type { WebhookServices } from './webhooks/webhook-types.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { PasswordHasher } from './identity/password-hashing.js';
import type { DomainEventBus } from './events.js';
import type { RetentionDefaults } from './retention/retention-rules.js';
import type { RawHorizon } from './series/series-types.js';
import type { HeavyWorkGate } from './workload/heavy-work-gate.js';

/**
 * What every domain function receives: the store, the clock, the event bus and the TUIDs no new thing may take.
 * Transports build it once (in the composition root) and pass it; nothing in the domain reaches for a global.
 */
export interface DomainDeps {
  store: Store;
  clock: Clock;
  events: DomainEventBus;
  /** Fixed path segments of the API where a TUID goes (`alerts`): no thing may be claimed with one (things/tuid.ts). */
  reservedTuids: ReadonlySet<string>;
  /** Set when MQTT passwords are sealed for a managed broker (identity-service.ts, createMqttCredential). */
  sealMqttPassword?: (password: string) => string;
  /** Where argon2 work takes its turns (identity/password-hashing.ts); unset: argon2 as it is (the CLI). */
  passwords?: PasswordHasher;
  /** Before when an organization's raw messages may be gone (retention); series read older parts from rollups. */
  rawHorizon: RawHorizon;
  /** The platform's retention (configuration), which an organization's own setting overrides. */
  retentionDefaults: RetentionDefaults;
  /** The per-caller cap on heavy reads (HEAVY_REQUESTS_PER_CALLER); absent (a test, the CLI): no cap. */
  heavyWork?: HeavyWorkGate;
  /** Webhooks' sealing, address rules and sending (SPEC 11); absent (the CLI without a platform): webhook mutations unavailable. */
  webhooks?: WebhookServices;
}
