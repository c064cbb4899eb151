/** The response matcher against a fake store: what it asks, what it updates, what it emits. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { startCommandResponseMatcher } from '../../../src/domain/commands/command-response-matcher.js';
import type { CommandAnswered } from '../../../src/domain/commands/command-types.js';
import { DomainEventBus } from '../../../src/domain/events.js';
import type { StoredMessage } from '../../../src/domain/messages/message-types.js';
import type { CommandAnswerUpdate, WaitingCommandItem } from '../../../src/store/commands-store.js';
import type { Store } from '../../../src/store/store.js';

function stored(message: Record<string, unknown>, receivedAt = 1_800_000_000_123): StoredMessage {
  return {
    organizationId: 'acme',
    tuid: String(message['tsmTuid']),
    tsmId: Number(message['tsmId']),
    tsmEv: typeof message['tsmEv'] === 'number' ? message['tsmEv'] : null,
    tsmTs: Number(message['tsmTs']),
    gatewayTuid: null,
    fingerprint: 'f',
    body: JSON.stringify(message),
    message,
    problems: [],
    receivedAt,
    groupId: null,
  };
}

/** A store that knows some waiting commands; `taken` marks ones another instance answered first. */
function fakeStore(waiting: WaitingCommandItem[], taken: Set<string> = new Set()) {
  const lookups: unknown[] = [];
  const updates: CommandAnswerUpdate[] = [];
  const store = {
    commands: {
      listWaiting: async (query: unknown) => {
        lookups.push(query);
        return waiting.filter((item) => !updates.some((u) => u.requestId === item.requestId && u.position === item.position));
      },
      markAnswered: async (update: CommandAnswerUpdate) => {
        if (taken.has(`${update.requestId}:${update.position}`)) return false;
        updates.push(update);
        return true;
      },
    },
  } as unknown as Store;
  return { store, lookups, updates };
}

async function run(store: Store, messages: StoredMessage[]): Promise<CommandAnswered[]> {
  const errors: unknown[] = [];
  const events = new DomainEventBus((error) => errors.push(error));
  const answered: CommandAnswered[] = [];
  events.on('commandAnswered', (event) => {
    answered.push(event);
  });
  const stop = startCommandResponseMatcher({ store, events });
  events.emit('messagesStored', { messages });
  await new Promise((resolve) => setTimeout(resolve, 20));
  stop();
  assert.deepEqual(errors, []);
  return answered;
}

const command = (tsmId: number, transactionId: number) => JSON.stringify({ tsmId, tsmEv: 30, tsmTs: 1, tsmDstTuid: 'T-1', transactionId });

describe('startCommandResponseMatcher', () => {
  test('messages without a transactionId cost no store query', async () => {
    const { store, lookups } = fakeStore([]);
    await run(store, [
      stored({ tsmId: 1110, tsmTs: 1, tsmTuid: 'T-1', batl: 5 }),
      stored({ tsmId: 1500, tsmTs: 1, tsmTuid: 'T-1', transactionId: 'x' }),
    ]);
    assert.deepEqual(lookups, []);
  });

  test('an echo answers the waiting command of its thing with the same id, and the event carries it', async () => {
    const { store, lookups, updates } = fakeStore([
      { requestId: 9, position: 0, body: command(1501, 5) },
      { requestId: 9, position: 1, body: command(1500, 5) },
    ]);
    const echo = { tsmId: 1500, tsmEv: 31, tsmTs: 2, tsmTuid: 'T-1', transactionId: 5 };
    const answered = await run(store, [stored(echo)]);
    assert.deepEqual(lookups, [{ organizationId: 'acme', tuid: 'T-1', transactionId: 5 }]);
    assert.deepEqual(updates, [
      { requestId: 9, position: 1, status: 'applied', response: JSON.stringify(echo), respondedAt: 1_800_000_000_123 },
    ]);
    assert.equal(answered.length, 1);
    assert.deepEqual(answered[0], {
      organizationId: 'acme',
      tuid: 'T-1',
      requestId: 9,
      position: 1,
      transactionId: 5,
      status: 'applied',
      command: JSON.parse(command(1500, 5)),
      response: echo,
      respondedAt: 1_800_000_000_123,
    });
  });

  test('a 1102 makes the first waiting command unavailable', async () => {
    const { store, updates } = fakeStore([{ requestId: 3, position: 0, body: command(13200, 8) }]);
    await run(store, [stored({ tsmId: 1102, tsmTs: 2, tsmTuid: 'T-1', transactionId: 8 })]);
    assert.deepEqual(
      updates.map((u) => [u.requestId, u.status]),
      [[3, 'unavailable']],
    );
  });

  test('a command answered meanwhile elsewhere is skipped for the next candidate; nothing waiting, nothing emitted', async () => {
    const { store, updates } = fakeStore(
      [
        { requestId: 7, position: 0, body: command(1500, 1) },
        { requestId: 6, position: 0, body: command(1500, 1) },
      ],
      new Set(['7:0']),
    );
    const answered = await run(store, [stored({ tsmId: 1500, tsmEv: 31, tsmTs: 2, tsmTuid: 'T-1', transactionId: 1 })]);
    assert.deepEqual(
      updates.map((u) => u.requestId),
      [6],
    );
    assert.equal(answered.length, 1);
    assert.deepEqual(await run(fakeStore([]).store, [stored({ tsmId: 1500, tsmTs: 2, tsmTuid: 'T-1', transactionId: 1 })]), []);
  });

  test('two answers in one batch go to two commands, in order', async () => {
    const { store, updates } = fakeStore([
      { requestId: 2, position: 0, body: command(1500, 4) },
      { requestId: 1, position: 0, body: command(1500, 4) },
    ]);
    await run(store, [
      stored({ tsmId: 1500, tsmTs: 2, tsmTuid: 'T-1', transactionId: 4 }),
      stored({ tsmId: 1500, tsmTs: 3, tsmTuid: 'T-1', transactionId: 4 }),
    ]);
    assert.deepEqual(
      updates.map((u) => u.requestId),
      [2, 1],
    );
  });
});
