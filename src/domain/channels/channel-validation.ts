import { fieldProblem, type FieldProblem } from '../errors.js';
import { channelTypes, type ChannelInput, type ChannelType } from './channel-types.js';

export const channelLimits = { nameLength: { min: 1, max: 100 }, recipients: 50, urlLength: 2000 } as const;

/** A plain address (local@domain.tld), no display name: what SMTP servers take in RCPT TO. */
const emailPattern = /^[^\s@<>(),;:"[\]]+@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)+$/;

/**
 * The rules of a channel's fields, each problem named by its field. `type` decides which of `to` (e-mail) and
 * `url` (chat) is required and which must be absent. The chat URL's address rules (SPEC section 11) are the
 * webhook ones, applied by the caller (`checkUrl`), so there is one source of truth for them.
 */
export function checkChannelInput(
  input: ChannelInput,
  type: ChannelType | undefined,
  creating: boolean,
  checkUrl: (url: string) => string | undefined,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (creating || input.name !== undefined) {
    const { min, max } = channelLimits.nameLength;
    if (typeof input.name !== 'string' || input.name.trim().length < min || input.name.length > max)
      problems.push(fieldProblem('name', `must be ${min} to ${max} characters`));
  }
  if (creating && !(channelTypes as readonly unknown[]).includes(input.type))
    problems.push(fieldProblem('type', `must be one of ${channelTypes.join(', ')}`));
  if (type === 'email') {
    if (input.url !== undefined && input.url !== null) problems.push(fieldProblem('url', 'is for chat channels only'));
    if (creating || input.to !== undefined) {
      const to = input.to;
      if (!Array.isArray(to) || to.length === 0 || to.length > channelLimits.recipients)
        problems.push(fieldProblem('to', `must be a list of 1 to ${channelLimits.recipients} e-mail addresses`));
      else {
        const bad = to.find((a) => typeof a !== 'string' || a.length > 254 || !emailPattern.test(a));
        if (bad !== undefined) problems.push(fieldProblem('to', `must hold e-mail addresses only: ${JSON.stringify(bad)} is not one`));
      }
    }
  }
  if (type === 'chat') {
    if (input.to !== undefined && input.to !== null) problems.push(fieldProblem('to', 'is for e-mail channels only'));
    if (creating || input.url !== undefined) {
      if (typeof input.url !== 'string' || input.url.length > channelLimits.urlLength)
        problems.push(fieldProblem('url', 'must be an https:// or http:// URL'));
      else {
        const problem = checkUrl(input.url);
        if (problem) problems.push(fieldProblem('url', problem));
      }
    }
  }
  return problems;
}
