import { builtInSeverity, type AlertChange, type AlertType } from '../alerts/alert-types.js';
import { formatLocalDateTime } from '../alerts/local-time.js';
import { opSymbols } from '../rules/rule-types.js';
import type { ChannelMessage, DigestEntry, MessageSettings, RuleFacts } from './channel-types.js';

/**
 * What a notification says (SPEC section 13): the subject (an e-mail's subject, a chat message's first line) names
 * the state, severity, rule and thing (`[thingdesk] OPEN critical: temp > 30 on TUID`); the details give the value,
 * threshold, group, the thing's name and labels, the time in ALERT_TIMEZONE and a link to the thing's studio page.
 */

export interface ThingFacts {
  groupId: string | null;
  name: string | null;
  labels: Record<string, string> | null;
}

export function thingLink(settings: MessageSettings, tuid: string): string | undefined {
  return settings.publicUrl === undefined ? undefined : `${settings.publicUrl}/studio/things/${encodeURIComponent(tuid)}`;
}

export function conditionOf(rule: RuleFacts): string {
  return `${rule.field} ${opSymbols[rule.op]} ${rule.threshold}`;
}

/**
 * A subject is one line: a name or path holding a line break or another control character must not start a new
 * header in an e-mail or a second line in a chat message.
 */
export function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f]+/g, ' ');
}

/** The state an alert change notifies: `open` or `closed`. */
export function stateOf(change: AlertChange): 'open' | 'closed' {
  return change.closedAt === null ? 'open' : 'closed';
}

export function alertMessage(
  change: AlertChange,
  rule: RuleFacts | undefined,
  thing: ThingFacts,
  settings: MessageSettings,
): ChannelMessage {
  const state = stateOf(change) === 'open' ? 'OPEN' : 'CLOSED';
  const severity = change.rule?.severity ?? builtInSeverity[change.alertType as AlertType] ?? 'warning';
  const what = rule ? conditionOf(rule) : change.alertType;
  const subject = oneLine(`[thingdesk] ${state} ${severity}: ${what} on ${change.tuid}`);
  const at = change.closedAt ?? change.openedAt;
  const lines = [
    rule ? `Rule: ${rule.name} (${conditionOf(rule)})` : `Alert: ${change.alertType}`,
    ...(change.rule ? [`Value: ${change.rule.value ?? 'unknown'}`] : []),
    ...(rule ? [`Threshold: ${rule.threshold}`] : []),
    `Thing: ${change.tuid}${thing.name ? ` (${thing.name})` : ''}`,
    ...(thing.labels && Object.keys(thing.labels).length > 0
      ? [
          `Labels: ${Object.entries(thing.labels)
            .map(([k, v]) => `${k}=${v}`)
            .join(', ')}`,
        ]
      : []),
    `Group: ${thing.groupId ?? 'unassigned'}`,
    ...(change.gatewayTuid ? [`Gateway: ${change.gatewayTuid}`] : []),
    `${state === 'OPEN' ? 'Opened' : 'Closed'}: ${formatLocalDateTime(at, settings.timeZone)} (${settings.timeZone})`,
  ];
  const link = thingLink(settings, change.tuid);
  if (link) lines.push(`Studio: ${link}`);
  return { kind: 'alert', subject, text: lines.join('\n') };
}

export function digestMessage(what: string, severity: string, entries: readonly DigestEntry[], settings: MessageSettings): ChannelMessage {
  const subject = oneLine(`[thingdesk] OPEN ${severity}: ${what} on ${entries.length} more things`);
  const lines = entries.map(
    (e) => `${e.tuid}: value ${e.value ?? 'unknown'} at ${formatLocalDateTime(e.at, settings.timeZone)}${linkSuffix(settings, e.tuid)}`,
  );
  return { kind: 'digest', subject, text: lines.join('\n'), digest: { what, severity, entries: [...entries] } };
}

function linkSuffix(settings: MessageSettings, tuid: string): string {
  const link = thingLink(settings, tuid);
  return link ? ` ${link}` : '';
}

export function testMessage(channelName: string): ChannelMessage {
  return {
    kind: 'test',
    subject: oneLine(`[thingdesk] Test notification for channel ${channelName}`),
    text: 'This channel works: thingdesk will send alert notifications here.',
  };
}
