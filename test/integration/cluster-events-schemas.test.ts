/**
 * Deployments kept in schemas of one PostgreSQL database do not hear each other's events: NOTIFY reaches the whole
 * database, so the relay's channel is named after the store's schema (cluster-events.ts). Found when two test
 * files' deployments shared one database: a battery alert of one arrived in the other's subscription.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { DomainEventBus } from '../../src/domain/events.js';
import { ClusterEvents, eventsChannelOf } from '../../src/integration/cluster-events.js';
import { createLogger } from '../../src/observability/logger.js';
import { cleanupStores, createPostgresUrl, postgresSkipReason } from '../helpers/databases.js';
import { eventually } from '../helpers/mqtt-clients.js';

after(cleanupStores);

describe('the cluster relay on schemas of one database', { skip: postgresSkipReason }, () => {
  test("an instance hears its own deployment's events and none of a deployment in another schema", async () => {
    const [first, second] = [await createPostgresUrl(), await createPostgresUrl()];
    const relays: ClusterEvents[] = [];
    const instance = async (databaseUrl: string, instanceId: string) => {
      const events = new DomainEventBus(() => undefined);
      const heard: string[] = [];
      events.onAnyInstance('sessionsEnded', (event) => void heard.push(event.sessionIds.join(',')));
      const relay = new ClusterEvents({ databaseUrl, events, instanceId, logger: createLogger('silent') });
      await relay.start();
      relays.push(relay);
      return { events, heard };
    };
    try {
      const a = await instance(first, 'a');
      const sameDeployment = await instance(first, 'b');
      const otherDeployment = await instance(second, 'c');
      const end = (bus: DomainEventBus, id: string) => bus.emit('sessionsEnded', { sessionIds: [id], reason: 'logout' });
      end(a.events, 'from-first');
      end(otherDeployment.events, 'from-second');
      await eventually(() => (sameDeployment.heard.includes('from-first') ? true : undefined), 5000, 'the same deployment to hear it');
      // A marker sent after, through the second deployment's own channel: once it is heard, anything the first
      // deployment's channel would have carried to it has arrived too.
      const marker = await instance(second, 'd');
      end(marker.events, 'marker');
      await eventually(() => (otherDeployment.heard.includes('marker') ? true : undefined), 5000, 'the marker');
      assert.deepEqual(otherDeployment.heard, ['from-second', 'marker']);
      assert.deepEqual(sameDeployment.heard, ['from-first']);
    } finally {
      for (const relay of relays) await relay.stop();
    }
  });

  test('the public schema keeps the channel of earlier versions (a rolling upgrade stays one deployment)', () => {
    assert.equal(eventsChannelOf('public'), 'thingdesk_events');
    assert.notEqual(eventsChannelOf('t_1'), eventsChannelOf('t_2'));
    assert.match(
      eventsChannelOf('a schema with "quotes" and a very long name that goes on and on and on'),
      /^thingdesk_events_[0-9a-f]{16}$/,
    );
  });
});
