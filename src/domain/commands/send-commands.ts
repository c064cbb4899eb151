import { toUnixSeconds } from '../clock.js';
import { audited } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';
import { serviceUnavailable, validationFailed } from '../errors.js';
import type { Principal } from '../auth/principal.js';
import { requireThing } from '../things/thing-access.js';
import type { CommandDownlink } from './command-downlink.js';
import { checkCommands, stampCommands } from './command-rules.js';
import type { SentCommandRequest } from './command-types.js';

/** Sending needs a way out to the thing (the MQTT downlink in a running platform) besides the store and clock. */
export type SendCommandsDeps = DomainDeps & { downlink: CommandDownlink };

export interface SendCommandsInput {
  tuid: string;
  /** The request body as received: checked here, so REST and GraphQL report the same problems. */
  commands: unknown;
}

/**
 * Sends commands to one of the caller's things (SPEC section 3): checks every command (all or nothing), sets
 * `tsmTs` and `tsmDstTuid`, stores the request in the thing's history, hands the commands to the downlink, and
 * answers what was sent.
 *
 * Stored before delivered, so an answer arriving at once finds its command. When the delivery fails (the downlink
 * bounds its own wait), the stored request is removed again and SERVICE_UNAVAILABLE is thrown: the
 * history shows only what was handed to the broker. Throws NOT_FOUND for an unknown or another organization's
 * thing, VALIDATION_FAILED naming each bad field (`commands[2].reportInterval`).
 */
export async function sendCommands(deps: SendCommandsDeps, principal: Principal, input: SendCommandsInput): Promise<SentCommandRequest> {
  const thing = await requireThing(deps, principal, input.tuid);
  const problems = checkCommands(input.commands, thing.tuid);
  if (problems.length > 0) throw validationFailed(problems);

  const now = deps.clock.now();
  const timestamp = toUnixSeconds(now);
  const commands = stampCommands(input.commands as unknown[], thing.tuid, timestamp);
  const names = commands.map((command) => String((command as { tsmId?: unknown }).tsmId ?? '')).join(',');
  const target = { type: 'thing', id: thing.tuid };
  const requestId = await audited(
    deps,
    principal,
    { organizationId: thing.organizationId, action: 'thing.send_commands', target },
    async () => ({
      result: await deps.store.commands.create({
        organizationId: thing.organizationId,
        tuid: thing.tuid,
        timestamp: now,
        responsible: principal.responsible,
        items: commands.map((command) => ({ transactionId: command.transactionId, body: JSON.stringify(command) })),
      }),
      details: auditFields({ tsmIds: names, count: commands.length }),
    }),
  );
  try {
    await deps.downlink.deliver(thing, commands);
  } catch {
    // The store may be what failed too; the caller learns the send failed either way.
    await deps.store.commands.delete(requestId).catch(() => undefined);
    throw serviceUnavailable('The MQTT broker did not take the commands, so they are not in the history; retry later.');
  }
  return { tuid: thing.tuid, timestamp, responsible: principal.responsible, commands };
}
