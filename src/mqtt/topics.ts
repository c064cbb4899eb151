/**
 * The MQTT topic layout of SPEC section 6, in one place. The organization id is always a segment of its own, so
 * broker access rules can be written per organization.
 *
 * - `thingdesk/{org}/up/{gatewayTuid}`: gateways publish uplink messages (a JSON array, or one object)
 * - `thingdesk/{org}/down/{tuid}`: the platform publishes commands for one thing (a JSON array)
 * - INTEGRATION_TOPIC (default `thingdesk/{org}/data/{group}/{tuid}/{tsmId}`): the data feed, one message each
 * - `thingdesk/{org}/alerts`: alert open and close events
 * - `thingdesk-cluster/messages/{instanceId}`: with an external broker, each instance's stored uplinks for the
 *   others' live streams (src/integration/message-relay.ts); only the platform's own user may use it
 */

export const topicRoot = 'thingdesk';

export function uplinkTopic(organizationId: string, gatewayTuid: string): string {
  return `${topicRoot}/${organizationId}/up/${gatewayTuid}`;
}

export function downlinkTopic(organizationId: string, tuid: string): string {
  return `${topicRoot}/${organizationId}/down/${tuid}`;
}

export function alertsTopic(organizationId: string): string {
  return `${topicRoot}/${organizationId}/alerts`;
}

/** Where an instance relays the uplinks it stored to the deployment's other instances (never a device's topic). */
export function clusterMessagesTopic(instanceId: string): string {
  return `${topicRoot}-cluster/messages/${instanceId}`;
}

export const clusterMessagesFilter = `${topicRoot}-cluster/messages/+`;

/** Every organization's uplink topics, as the platform subscribes to them. */
export const allUplinksFilter = `${topicRoot}/+/up/+`;

/** The parts of an uplink topic, or undefined when the topic is not one. */
export function parseUplinkTopic(topic: string): { organizationId: string; gatewayTuid: string } | undefined {
  const parts = topic.split('/');
  if (parts.length !== 4 || parts[0] !== topicRoot || parts[2] !== 'up' || !parts[1] || !parts[3]) return undefined;
  return { organizationId: parts[1], gatewayTuid: parts[3] };
}

/** The parts of a downlink topic, or undefined. */
export function parseDownlinkTopic(topic: string): { organizationId: string; tuid: string } | undefined {
  const parts = topic.split('/');
  if (parts.length !== 4 || parts[0] !== topicRoot || parts[2] !== 'down' || !parts[1] || !parts[3]) return undefined;
  return { organizationId: parts[1], tuid: parts[3] };
}

export interface FeedTopicValues {
  org: string;
  group: string;
  tuid: string;
  tsmId: number | string;
}

/**
 * Fills an INTEGRATION_TOPIC template. Values that would break the topic structure (`/`, `+`, `#`) are replaced by
 * `_`: a TUID may contain none of them by its own rule, but this keeps the feed safe whatever a device sends.
 */
export function fillFeedTopic(template: string, values: FeedTopicValues): string {
  // Called for every stored uplink: the template is split once, and a value is copied only when it must change.
  let parts = feedTemplateParts.get(template);
  if (!parts) {
    if (feedTemplateParts.size > 100) feedTemplateParts.clear();
    parts = template.split(/\{(org|group|tuid|tsmId)\}/);
    feedTemplateParts.set(template, parts);
  }
  let topic = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = String(values[parts[i] as keyof FeedTopicValues]);
    topic += (/[/+#]/.test(value) ? value.replace(/[/+#]/g, '_') : value) + parts[i + 1]!;
  }
  return topic;
}

/** Templates split at their placeholders: literal text at even indexes, placeholder names at odd ones. */
const feedTemplateParts = new Map<string, string[]>();

/**
 * The subscription filter that matches every feed topic of one organization: each placeholder except `{org}`
 * becomes `+`. Used by the access rules (an integration credential may subscribe within it) and by subscribers.
 */
export function feedFilterFor(template: string, organizationId: string): string {
  return template.replace('{org}', organizationId).replace(/\{(group|tuid|tsmId)\}/g, '+');
}

/**
 * The platform's own topics, as filters: uplinks, downlinks, alerts, and the whole `thingdesk-cluster/` namespace
 * (the relay between instances, and whatever links instances later). No feed topic may be one of them, whatever an
 * organization, group or thing is called; so a template cannot start with a placeholder.
 */
const platformTopicFilters = [allUplinksFilter, `${topicRoot}/+/down/+`, `${topicRoot}/+/alerts`, `${topicRoot}-cluster/#`];

/**
 * Which of the platform's own topics (or a `$` topic of the broker) an INTEGRATION_TOPIC template can produce, as a
 * phrase for an error, or undefined when none. Each placeholder is taken to be any segment (an organization id
 * could be `thingdesk`, a TUID `up`); only `{group}` may start with `$` (organization ids, TUIDs and tsmIds cannot).
 */
export function feedTemplateReachesPlatformTopics(template: string): string | undefined {
  const segments = template.split('/');
  const first = segments[0]!;
  if (first.startsWith('$') || first === '{group}') return `it can produce broker topics starting with $ (${first})`;
  const filter = segments.map((segment) => (/^\{[^{}]*\}$/.test(segment) ? '+' : segment));
  const reached = platformTopicFilters.find((platform) => filtersOverlap(filter, platform.split('/')));
  return reached && `it can produce the platform's own topics ${reached} (e.g. for an organization, group or TUID of that name)`;
}

/** Whether some topic matches both filters (levels of `+`, or a trailing `#`). */
function filtersOverlap(left: readonly string[], right: readonly string[]): boolean {
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const a = left[i];
    const b = right[i];
    if (a === '#' || b === '#') return true;
    if (a === undefined || b === undefined) return false;
    if (a !== '+' && b !== '+' && a !== b) return false;
  }
  return true;
}
