import type { Logger } from '../observability/logger.js';
import type { DomainEventBus } from '../domain/events.js';
import { messageJsonWithGroup } from '../domain/messages/message-json.js';
import { shownGroupId } from '../domain/groups/unassigned-group.js';
import type { MqttTransport } from '../mqtt/mqtt-transport.js';
import { fillFeedTopic } from '../mqtt/topics.js';

/**
 * The live data feed (SPEC section 6): every stored uplink, once, as a single JSON object on INTEGRATION_TOPIC.
 * It listens to `messagesStored`; ingest knows nothing of it. Published after commit with QoS 1: a crash between
 * the two loses the feed copy (the store keeps the message), never the other way round.
 */
export function startDataFeed(deps: { events: DomainEventBus; mqtt: MqttTransport; template: string; logger: Logger }): () => void {
  return deps.events.on('messagesStored', async ({ messages }) => {
    const published = messages.map((m) =>
      deps.mqtt.publish(
        fillFeedTopic(deps.template, { org: m.organizationId, group: shownGroupId(m.groupId), tuid: m.tuid, tsmId: m.tsmId }),
        messageJsonWithGroup(m.body, m.groupId),
        1,
      ),
    );
    const failures = (await Promise.allSettled(published)).filter((r) => r.status === 'rejected');
    if (failures.length > 0)
      deps.logger.warn(
        { failed: failures.length, reason: String((failures[0] as PromiseRejectedResult).reason) },
        'data feed publish failed',
      );
  });
}
