import type { DomainDeps } from '../domain-deps.js';
import type { StoredMessage } from '../messages/message-types.js';
import { answerTransactionId, answeredStatus, chooseAnsweredCommand } from './command-rules.js';
import type { SentCommand } from './command-types.js';

/**
 * Matches uplinks to the commands they answer (SPEC section 3): a message from a thing carrying the transactionId
 * of one of its `sent` commands answers it. The command becomes `applied` (`unavailable` for a 1102), keeps the
 * message as received and its arrival time, and a `commandAnswered` event goes out. Only the destination
 * thing's own uplinks count: commands are looked up by the message's TUID and organization.
 *
 * Listens to `messagesStored`, after the commit. A message without a transactionId (nearly all of them) costs a
 * property read and no query. Returns the function that stops listening.
 */
export function startCommandResponseMatcher(deps: Pick<DomainDeps, 'store' | 'events'>): () => void {
  return deps.events.on('messagesStored', async ({ messages }) => {
    const answers = messages.filter((message) => answerTransactionId(message.message) !== undefined);
    // In arrival order, one at a time: two answers with one transactionId go to two commands, oldest answer first.
    for (const answer of answers) await matchAnswer(deps, answer);
  });
}

async function matchAnswer(deps: Pick<DomainDeps, 'store' | 'events'>, answer: StoredMessage): Promise<void> {
  const transactionId = answerTransactionId(answer.message)!;
  const waiting = await deps.store.commands.listWaiting({ organizationId: answer.organizationId, tuid: answer.tuid, transactionId });
  let candidates = waiting.map((item) => {
    const command = JSON.parse(item.body) as SentCommand;
    return { ...item, command, tsmId: command.tsmId };
  });
  const status = answeredStatus(answer.message);
  // A candidate another instance answered meanwhile is skipped: the update only takes a command still `sent`.
  for (let chosen = chooseAnsweredCommand(candidates, answer.tsmId); chosen; chosen = chooseAnsweredCommand(candidates, answer.tsmId)) {
    const updated = await deps.store.commands.markAnswered(
      {
        requestId: chosen.requestId,
        position: chosen.position,
        status,
        response: answer.body,
        respondedAt: answer.receivedAt,
      },
      {
        organizationId: answer.organizationId,
        type: 'command.answered',
        tuid: answer.tuid,
        data: `{"tuid":${JSON.stringify(answer.tuid)},"transaction_id":${transactionId},"tsm_id":${chosen.command.tsmId},"status":${JSON.stringify(status)},"response":${answer.body}}`,
      },
    );
    if (updated) {
      deps.events.emit('commandAnswered', {
        organizationId: answer.organizationId,
        tuid: answer.tuid,
        requestId: chosen.requestId,
        position: chosen.position,
        transactionId,
        status,
        command: chosen.command,
        response: answer.message,
        respondedAt: answer.receivedAt,
      });
      return;
    }
    candidates = candidates.filter((candidate) => candidate !== chosen);
  }
}
