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

test('a stage sits between local and relayed events and onAnyInstance listeners only, and hears how many listen', () => {
  const failures: unknown[] = [];
  const bus = new DomainEventBus((error) => failures.push(error));
  const local: string[] = [];
  const any: string[] = [];
  const counts: number[] = [];
  const held: string[] = [];
  bus.on('apiClientRevoked', ({ clientId }) => void local.push(clientId));
  const staged = bus.stageAnyInstance('apiClientRevoked', {
    pass: ({ clientId }) => {
      if (clientId === 'broken') throw new Error('a broken stage');
      held.push(clientId);
    },
    listenersChanged: (count) => void counts.push(count),
  });
  const stop = bus.onAnyInstance('apiClientRevoked', ({ clientId }) => void any.push(clientId));

  bus.emit('apiClientRevoked', { clientId: 'here' });
  bus.emitRelayed('apiClientRevoked', { clientId: 'there' });
  bus.emit('apiClientRevoked', { clientId: 'broken' });
  assert.deepEqual(local, ['here', 'broken'], 'local listeners hear at once, whatever the stage does');
  assert.equal(any.length, 0, 'the stage holds them');
  assert.equal(failures.length, 1, "the stage's failure stays in the bus");
  for (const clientId of held.reverse()) staged.deliver({ clientId });
  assert.deepEqual(any, ['there', 'here'], 'passed on when and as the stage sees fit');

  stop();
  assert.deepEqual(counts, [1, 0]);
  staged.remove();
  bus.onAnyInstance('apiClientRevoked', ({ clientId }) => void any.push(clientId));
  bus.emitRelayed('apiClientRevoked', { clientId: 'unstaged' });
  assert.deepEqual(any, ['there', 'here', 'unstaged'], 'without the stage, straight through');
  assert.deepEqual(counts, [1, 0]);
});
