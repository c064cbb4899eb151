/** The event bus's two kinds of listener: this instance's events, and the deployment's (relayed ones too). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DomainEventBus } from '../../src/domain/events.js';

test('a relayed event reaches onAnyInstance listeners only; a local one reaches both; listener failures stay in the bus', () => {
  const failures: unknown[] = [];
  const bus = new DomainEventBus((error) => failures.push(error));
  const local: string[] = [];
  const any: string[] = [];
  bus.on('apiClientRevoked', ({ clientId }) => void local.push(clientId));
  const stop = bus.onAnyInstance('apiClientRevoked', ({ clientId }) => void any.push(clientId));
  bus.on('apiClientRevoked', () => {
    throw new Error('a broken listener');
  });

  bus.emit('apiClientRevoked', { clientId: 'here' });
  // From another instance: its side effects (feeds, matching) happened there, so local listeners never see it.
  bus.emitRelayed('apiClientRevoked', { clientId: 'there' });
  assert.deepEqual(local, ['here']);
  assert.deepEqual(any, ['here', 'there']);
  assert.equal(failures.length, 1);

  stop();
  bus.emitRelayed('apiClientRevoked', { clientId: 'after' });
  assert.deepEqual(any, ['here', 'there']);
});
