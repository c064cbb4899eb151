/**
 * `tsx bench/relay/order-buffer.ts` (issue 32, finding 5): what the live streams' order buffer costs with many
 * messages held. The red team's case: 15,000 to 20,000 held messages made one push take 21 to 57 s, each release
 * scanning every waiting thing. Prints, for one thing holding N seqs and for N things holding one each, the worst
 * push, the mean push and the release of all N once due, in milliseconds, and the buffer's own step count.
 * BENCH_HELD sets N (default 20,000).
 */
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { StoredOrderBuffer } from '../../src/integration/stored-order.js';

const held = Number(process.env.BENCH_HELD ?? 20_000);
let clock = 1_000_000;

function message(tuid: string, seq: number, previousAt: number | null): StoredMessage {
  return {
    ...{ organizationId: 'bench', tuid, tsmId: 1110, tsmEv: 10, tsmTs: 1_793_000_000, gatewayTuid: 'GW-1', fingerprint: 'f' },
    ...{ groupId: null, receivedAt: clock, body: '{}', message: {}, problems: [], seq, previousAt },
  };
}

for (const shape of ['one thing', 'one per thing'] as const) {
  const buffer = new StoredOrderBuffer({ deliver: () => undefined, maxHeld: held + 1, now: () => clock });
  buffer.listening(true);
  clock += 60_000;
  const tuid = (i: number) => (shape === 'one thing' ? 'T' : `T-${i}`);
  if (shape === 'one thing') buffer.push([message('T', 1, null)]);
  else for (let i = 0; i < held; i++) buffer.push([message(tuid(i), 1, null)]);
  let worst = 0;
  const start = performance.now();
  for (let i = 0; i < held; i++) {
    const seq = shape === 'one thing' ? 3 + 2 * i : 3;
    const t0 = performance.now();
    buffer.push([message(tuid(i), seq, clock - 10)]);
    worst = Math.max(worst, performance.now() - t0);
  }
  const pushes = performance.now() - start;
  clock += 2_000;
  const t0 = performance.now();
  buffer.releaseDue();
  const release = performance.now() - t0;
  buffer.close();
  console.log(
    `${shape}, ${held} held: worst push ${worst.toFixed(3)} ms, mean ${((1000 * pushes) / held).toFixed(2)} µs, ` +
      `release of all ${release.toFixed(1)} ms, ${buffer.counts.steps} steps`,
  );
}
