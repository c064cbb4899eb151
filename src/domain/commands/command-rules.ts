/**
 * The rules of the command endpoint (SPEC section 3) that are not the catalog's: the batch size, the destination
 * check, stamping, and how a thing's uplink answers a command. What each command may contain is the catalog's
 * rule (`validateCommand`), not repeated here.
 */
import { prefixProblems, validateCommand, type Problem } from '../../catalog/index.js';
import type { FieldProblem } from '../errors.js';
import type { CommandStatus, SentCommand } from './command-types.js';

/** How many commands one request may carry. The seed does not say; 100 keeps a downlink payload small. */
export const commandsPerRequest = { min: 1, max: 100 } as const;

/** The name the whole batch is reported under, in REST and GraphQL alike. */
export const commandsField = 'commands';

/** Fields the history adds to each command; a command carrying one would have it hidden there. */
export const trackingFieldNames = ['status', 'response', 'respondedAt'] as const;

/**
 * How deep a command's values may nest. Catalog commands are flat; 13200 takes free fields, and without a bound a
 * deeply nested one (thousands of levels) overflowed the stack while being stored: a 500 instead of a 400.
 */
export const maxCommandNesting = 32;

/** The id a thing answers with when it cannot supply what a command asked for (seed 002 part 6, rule 1). */
export const unavailableResponseTsmId = 1102;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The problems of one command beyond the catalog's: a foreign destination, a field the history reserves. */
function checkCommand(command: unknown, tuid: string): Problem[] {
  const problems = validateCommand(command);
  if (!isRecord(command)) return problems;
  const named = new Set(problems.map((problem) => problem.field));
  for (const [name, value] of Object.entries(command)) {
    if (nestsDeeperThan(value, maxCommandNesting))
      problems.push({ field: name, message: `${name} nests more than ${maxCommandNesting} levels deep` });
  }
  const destination = command['tsmDstTuid'];
  if (typeof destination === 'string' && destination !== tuid) {
    problems.push({ field: 'tsmDstTuid', message: `tsmDstTuid must be ${tuid}, the thing of the path, or be left out` });
  }
  // Only 13200 takes free fields; every other id already reports these as unknown fields.
  for (const name of trackingFieldNames) {
    if (Object.hasOwn(command, name) && !named.has(name))
      problems.push({ field: name, message: `${name} is reserved: the command history reports it` });
  }
  return problems;
}

/** Whether arrays and objects in `value` nest deeper than `levels` (recursion bounded by `levels`). */
function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  return Object.values(value).some((child) => nestsDeeperThan(child, levels - 1));
}

/**
 * Every problem of a command batch for thing `tuid`, each named by its path (`commands`, `commands[2].reportInterval`).
 * Empty means every command may be sent; any problem means none may (all or nothing).
 */
export function checkCommands(commands: unknown, tuid: string): FieldProblem[] {
  const { min, max } = commandsPerRequest;
  if (!Array.isArray(commands))
    return [{ field: commandsField, message: `${commandsField} must be a JSON array of ${min} to ${max} commands` }];
  if (commands.length < min) return [{ field: commandsField, message: `${commandsField} must hold at least ${min} command` }];
  if (commands.length > max)
    return [{ field: commandsField, message: `${commandsField} must hold at most ${max} commands, not ${commands.length}` }];
  return commands.flatMap((command: unknown, index) => prefixProblems(checkCommand(command, tuid), `${commandsField}[${index}]`));
}

/**
 * The commands as they are stored and published: each caller field kept, `tsmTs` (Unix seconds) and `tsmDstTuid`
 * set by the service. A `tsmTs` the caller sent is overwritten: the seed says the service sets it. Only for
 * commands `checkCommands` accepted.
 */
export function stampCommands(commands: readonly unknown[], tuid: string, tsmTs: number): SentCommand[] {
  return commands.map((command) => ({ ...(command as Record<string, unknown>), tsmTs, tsmDstTuid: tuid }) as SentCommand);
}

/** The transactionId of an uplink when it can answer a command (a safe integer), else undefined. */
export function answerTransactionId(message: Readonly<Record<string, unknown>>): number | undefined {
  const value = message['transactionId'];
  return typeof value === 'number' && Number.isSafeInteger(value) ? value : undefined;
}

/** What an answer makes of its command: a 1102 says the thing could not do it; anything else is the result. */
export function answeredStatus(message: Readonly<Record<string, unknown>>): Exclude<CommandStatus, 'sent'> {
  return message['tsmId'] === unavailableResponseTsmId ? 'unavailable' : 'applied';
}

/**
 * Which waiting command an answer belongs to, given the thing's `sent` commands with its transactionId, newest
 * request first and in request order within one. The first with the answer's tsmId wins (an echo repeats its
 * command's id, so two commands sharing a transactionId are told apart); when none has it (a 1102), the first.
 */
export function chooseAnsweredCommand<T extends { tsmId: unknown }>(waiting: readonly T[], answerTsmId: unknown): T | undefined {
  return waiting.find((command) => command.tsmId === answerTsmId) ?? waiting[0];
}
