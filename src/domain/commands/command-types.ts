/** The shapes of the command endpoint and its history (SPEC section 3), shared by REST and GraphQL. */

/**
 * Where a command stands: `sent` until the destination thing answers with the same transactionId, then `applied`
 * (its echo or any other answer) or `unavailable` (a 1102: the thing cannot supply what was asked).
 */
export type CommandStatus = 'sent' | 'applied' | 'unavailable';

/** A command as published: the caller's fields with `tsmTs` and `tsmDstTuid` set by the service. */
export type SentCommand = Readonly<Record<string, unknown>> & {
  tsmId: number;
  tsmEv: number;
  tsmTs: number;
  tsmDstTuid: string;
  transactionId: number;
};

/** The answer to a send: what was stored and published. Times are Unix seconds. */
export interface SentCommandRequest {
  tuid: string;
  timestamp: number;
  /** The caller: a REST client's `client_id`, or a user's e-mail over GraphQL. */
  responsible: string;
  commands: SentCommand[];
}

/** One command of a history record: the command as sent plus its tracking. */
export type TrackedCommand = SentCommand & {
  status: CommandStatus;
  /** The thing's answer as received, or null while none arrived. */
  response: Record<string, unknown> | null;
  /** Arrival of the answer on the platform's clock, Unix seconds; null while none arrived. */
  respondedAt: number | null;
};

/** One request of a thing's command history. `command` is the first of `commands` (the seed's one-command form). */
export interface CommandHistoryRecord {
  tuid: string;
  timestamp: number;
  responsible: string;
  command: TrackedCommand;
  commands: TrackedCommand[];
}

/** Payload of the `commandAnswered` domain event: one command got its answer. Times in milliseconds. */
export interface CommandAnswered {
  organizationId: string;
  tuid: string;
  requestId: number;
  /** Index of the command in its request. */
  position: number;
  transactionId: number;
  status: Exclude<CommandStatus, 'sent'>;
  command: SentCommand;
  response: Readonly<Record<string, unknown>>;
  respondedAt: number;
}

/** One command of a stored request, as the store keeps it: texts as published and received, times in ms. */
export interface StoredCommandItem {
  position: number;
  transactionId: number | null;
  /** The command as published (JSON). */
  body: string;
  status: CommandStatus;
  /** The answer as received (JSON), or null. */
  response: string | null;
  /** Milliseconds, or null. */
  respondedAt: number | null;
}

/** A request as the store keeps it: the record the command history is built from. */
export interface StoredCommandRequest {
  id: number;
  tuid: string;
  timestamp: number;
  responsible: string;
  items: StoredCommandItem[];
}
