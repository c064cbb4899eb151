/**
 * The command form as data: which catalog entries it offers and how the typed-in text becomes a command. The
 * catalog (GraphQL `catalog`) is the one statement of each command's fields; the form only reads it, and the
 * platform checks what is sent (its field errors are shown on the inputs), so no rule is repeated here.
 */
import { deviceAnswerEventIds, eventUses } from '../../../../src/catalog/event-uses.js';

/** One entry of a value set (`{ value: 255, meaning: 'beacon off' }`). */
export interface CatalogValue {
  value: number | string;
  meaning: string;
}

/** A field of a catalog message, as the `catalog` query serves it (src/catalog/types.ts). */
export interface CatalogField {
  name: string;
  type: 'Number' | 'String' | 'Buffer' | 'Array' | 'Object';
  required: boolean;
  values?: CatalogValue[];
  min?: number;
  max?: number;
  integer?: boolean;
  unit?: string;
  description?: string;
  default?: number | string;
  example?: unknown;
}

/** A catalog message definition, as far as the form needs it. */
export interface CatalogEntry {
  tsmId: number;
  name: string;
  events: number[];
  commandEndpoint: boolean;
  fields: CatalogField[];
  openPayload?: boolean;
}

/** The event sent when the catalog shows none for an id (seed 002: configurations are sent with event 30). */
export const fallbackEvent = 30;

/** The entries the command endpoint accepts, by id. */
export function commandEntries(catalog: readonly CatalogEntry[]): CatalogEntry[] {
  return catalog.filter((entry) => entry.commandEndpoint).sort((a, b) => a.tsmId - b.tsmId);
}

/**
 * A fresh transactionId: the device echoes it, and the platform matches the echo to the newest waiting command
 * with it, so each send gets its own (seconds since 2024, then counting up: fits a 32-bit device counter for decades).
 */
export function newTransactionId(nowMs = Date.now()): number {
  lastTransactionId = Math.max(lastTransactionId + 1, Math.floor(nowMs / 1000) - 1_704_067_200);
  return lastTransactionId;
}
/** The last id handed out by this tab: two sends within a second still get two ids. */
let lastTransactionId = 0;

/**
 * The envelope's transactionId, which every command must carry (SPEC section 3) though an open payload (13200) does
 * not list it among its fields: the form always has an input for it.
 */
const transactionIdInput: CatalogField = {
  name: 'transactionId',
  type: 'Number',
  integer: true,
  required: true,
  description: 'Caller-chosen id, echoed by the device in its response',
};

/** The inputs of an entry: its catalog fields, with a transactionId first when the catalog does not list one. */
export function formFields(entry: CatalogEntry): CatalogField[] {
  return entry.fields.some((field) => field.name === transactionIdInput.name) ? entry.fields : [transactionIdInput, ...entry.fields];
}

/** The inputs' starting text for an entry: defaults prefilled, a new transactionId, the rest empty (not sent). */
export function initialValues(entry: CatalogEntry): Record<string, string> {
  const values: Record<string, string> = {};
  for (const field of formFields(entry)) {
    if (field.name === 'transactionId') values[field.name] = String(newTransactionId());
    else values[field.name] = field.default === undefined ? '' : valueKey(field.default);
  }
  return values;
}

/** A value set's entry as the text of a select's option (numbers and strings stay apart: `s:` marks strings). */
export function valueKey(value: number | string): string {
  return typeof value === 'number' ? String(value) : `s:${value}`;
}

/**
 * One field's text as the value to send; undefined leaves the field out. Numbers that do not parse are sent as
 * typed, so the platform names the field rather than the form guessing.
 */
export function fieldValue(field: CatalogField, input: unknown): unknown {
  const text = textOf(input);
  if (text.trim() === '') return undefined;
  if (field.values) return field.values.find((option) => valueKey(option.value) === text)?.value ?? text;
  if (field.type === 'Number') {
    const number = Number(text);
    return Number.isFinite(number) ? number : text;
  }
  if (field.type === 'String' || field.type === 'Buffer') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** An input's value as text: a bound number input gives a number, or null when empty. */
function textOf(input: unknown): string {
  return input === null || input === undefined ? '' : String(input);
}

/** Thrown when the free fields of an open payload (13200) are not a JSON object; `field` names the input. */
export class FormInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The name under which the free fields of an open payload are reported on the form. */
export const extraFieldsName = 'extraFields';

/** The command the form describes: id, event, each filled field, and an open payload's free fields. */
export function buildCommand(entry: CatalogEntry, event: unknown, values: Record<string, unknown>, extra: string): Record<string, unknown> {
  const command: Record<string, unknown> = { tsmId: entry.tsmId };
  const eventText = textOf(event).trim();
  const eventNumber = Number(eventText);
  // An empty event is left out: the platform names tsmEv as required.
  if (eventText !== '') command['tsmEv'] = Number.isFinite(eventNumber) ? eventNumber : eventText;
  for (const field of formFields(entry)) {
    const value = fieldValue(field, values[field.name]);
    if (value !== undefined) command[field.name] = value;
  }
  if (entry.openPayload && extra.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(extra);
    } catch {
      throw new FormInputError(extraFieldsName, 'Write the other fields as a JSON object, e.g. {"mode": 1}.');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw new FormInputError(extraFieldsName, 'The other fields must be a JSON object, e.g. {"mode": 1}.');
    Object.assign(command, parsed, { tsmId: entry.tsmId }, 'tsmEv' in command ? { tsmEv: command['tsmEv'] } : {});
  }
  return command;
}

/** The field the platform named for the one command the form sends (`commands[0].reportInterval` → `reportInterval`). */
export function formFieldOf(serverField: string): string | undefined {
  const match = /^commands\[0\]\.?(.*)$/.exec(serverField);
  if (!match) return undefined;
  // A nested path (`values[2]`) belongs to its top-level field's input.
  return /^[^.[]*/.exec(match[1] ?? '')?.[0] ?? '';
}

/** One command of a request as the history shows it (CommandRecord.commands: the command with its tracking). */
export interface TrackedCommand {
  [key: string]: unknown;
  tsmId: number;
  tsmEv?: number;
  transactionId?: number;
  status: 'sent' | 'applied' | 'unavailable';
  respondedAt: number | null;
}
export interface HistoryRecord {
  timestamp: number;
  responsible: string;
  commands: TrackedCommand[];
}

/**
 * The events the form offers for an entry: its catalog events without the ones only the device sends back (1500
 * lists 30, the command, and 31, the device's echo with the applied configuration), else the usual downlink event.
 */
export function offeredEvents(entry: CatalogEntry): number[] {
  const sendable = entry.events.filter((event) => !deviceAnswerEventIds.includes(event));
  return sendable.length > 0 ? sendable : [fallbackEvent];
}

/** An event's use in words, from the catalog's event table ("Configuration and command messages"). */
export function eventMeaning(event: number): string | undefined {
  return eventUses.find((row) => row.id === event)?.use;
}

/** The envelope and tracking keys of a history entry: what remains is the payload that was sent. */
const notPayload = new Set(['tsmId', 'tsmEv', 'tsmTs', 'tsmDstTuid', 'transactionId', 'status', 'response', 'respondedAt']);

/** What a tracked command carried besides its envelope, in the order it was sent. */
export function payloadOf(command: Record<string, unknown>): [string, unknown][] {
  return Object.entries(command).filter(([key]) => !notPayload.has(key));
}

/**
 * What the history says of a command: `no answer` for one still `sent` after COMMAND_ANSWER_TIMEOUT_S (the platform
 * keeps it `sent`, and a late answer still turns it `applied`; the studio only stops promising one).
 */
export function shownStatus(status: TrackedCommand['status'], sentAt: number, nowS: number, timeoutS: number): string {
  return status === 'sent' && nowS - sentAt >= timeoutS ? 'no answer' : status;
}
