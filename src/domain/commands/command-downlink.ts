import type { SentCommand } from './command-types.js';

/**
 * The way out to a thing, as the domain needs it: hand over a batch of stamped commands for delivery. The domain
 * does not know the transport; the composition root passes an implementation (src/integration/command-downlink.ts
 * publishes on the thing's MQTT downlink topic). Rejects when the commands could not be handed over in time.
 */
export interface CommandDownlink {
  deliver(thing: { organizationId: string; tuid: string }, commands: readonly SentCommand[]): Promise<void>;
}
