import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DomainEventBus } from './events.js';
import type { RetentionDefaults } from './retention/retention-rules.js';
import type { RawHorizon } from './series/series-types.js';

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
  /** Before when an organization's raw messages may be gone (retention); series read older parts from rollups. */
  rawHorizon: RawHorizon;
  /** The platform's retention (configuration), which an organization's own setting overrides. */
  retentionDefaults: RetentionDefaults;
}
