import type { MqttCredentialKind } from '../domain/identity/types.js';
import { alertsTopic, allUplinksFilter, clusterMessagesFilter, feedFilterFor, parseUplinkTopic, topicRoot } from './topics.js';

/** Who is connected: the MQTT credential a client authenticated with. */
export interface MqttPrincipal {
  username: string;
  organizationId: string;
  kind: MqttCredentialKind;
}

/**
 * The broker access rules of SPEC section 6, as pure functions (the embedded broker calls them; docs/mqtt.md
 * gives the same rules as a Mosquitto ACL for external brokers):
 * - a gateway may publish only to its organization's `up` topics and subscribe only to its `down` topics;
 * - an integration may subscribe only to its organization's data-feed topics and alert topic, and publish nothing.
 */
export function mayPublish(principal: MqttPrincipal, topic: string): boolean {
  if (principal.kind !== 'gateway') return false;
  return parseUplinkTopic(topic)?.organizationId === principal.organizationId;
}

export function maySubscribe(principal: MqttPrincipal, filter: string, feedTemplate: string): boolean {
  if (principal.kind === 'gateway') {
    return isFilterWithin(filter, [topicRoot, principal.organizationId, 'down', '+']);
  }
  return (
    isFilterWithin(filter, feedFilterFor(feedTemplate, principal.organizationId).split('/')) ||
    isFilterWithin(filter, alertsTopic(principal.organizationId).split('/'))
  );
}

/**
 * True when every topic the subscription `filter` can match is also matched by `pattern` (segments that are
 * literals or `+`). So `+` in the filter is allowed only where the pattern has `+`, and `#` only where everything
 * after it in the pattern is `+`: a client can narrow what it may see, never widen it.
 */
export function isFilterWithin(filter: string, pattern: readonly string[]): boolean {
  const segments = filter.split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (segment === '#') return i === segments.length - 1 && i < pattern.length && pattern.slice(i).every((p) => p === '+');
    const allowed = pattern[i];
    if (allowed === undefined) return false;
    if (allowed === '+') {
      if (segment !== '+' && /[+#]/.test(segment)) return false;
    } else if (segment !== allowed) {
      return false;
    }
  }
  return segments.length === pattern.length;
}

/** The access rules above as topic patterns, for a broker that enforces them itself (Mosquitto's dynamic security). */
export interface BrokerAcl {
  /** Topics the client may publish to. */
  publish: string[];
  /** Filters within which the client may subscribe (and receive). */
  subscribe: string[];
}

/**
 * What a credential of `kind` in `organizationId` may do, as patterns: the same rules as `mayPublish` and
 * `maySubscribe` (a test holds them together), written out for a broker that cannot call them.
 */
export function brokerAclOf(kind: MqttCredentialKind, organizationId: string, feedTemplate: string): BrokerAcl {
  if (kind === 'gateway') {
    return { publish: [`${topicRoot}/${organizationId}/up/+`], subscribe: [`${topicRoot}/${organizationId}/down/+`] };
  }
  return { publish: [], subscribe: [feedFilterFor(feedTemplate, organizationId), alertsTopic(organizationId)] };
}

/** The platform's own user: consume every organization's uplinks, publish downlinks, the feed and alerts, relay. */
export function platformAcl(feedTemplate: string): BrokerAcl {
  const feed = feedFilterFor(feedTemplate, '+');
  return {
    publish: [`${topicRoot}/+/down/+`, feed, alertsTopic('+'), clusterMessagesFilter],
    subscribe: [allUplinksFilter, clusterMessagesFilter],
  };
}

/** What a broker asks of a client's request: may it publish to, or subscribe to, this topic or filter? */
export type BrokerAction = 'publish' | 'subscribe';

/**
 * A broker's authorization question answered by the rules above (MQTT_AUTH=http): a credential by `mayPublish` and
 * `maySubscribe`, the platform's own user by `platformAcl`. A shared subscription is judged by its topic filter
 * (`$share/{group}/` taken off), as Mosquitto does; a publish is judged by its topic as given.
 */
export function mayBrokerAllow(who: MqttPrincipal | 'platform', action: BrokerAction, topic: string, feedTemplate: string): boolean {
  const filter = action === 'subscribe' && topic.startsWith('$share/') ? topic.split('/').slice(2).join('/') : topic;
  if (who === 'platform') {
    const acl = platformAcl(feedTemplate);
    const patterns = action === 'publish' ? acl.publish : acl.subscribe;
    return patterns.some((pattern) => isFilterWithin(filter, pattern.split('/')) && (action === 'subscribe' || !/[+#]/.test(filter)));
  }
  return action === 'publish' ? mayPublish(who, filter) : maySubscribe(who, filter, feedTemplate);
}
