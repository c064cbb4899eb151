/**
 * What a broker's CONNACK and SUBACK tell about whether it will keep what the platform needs: the settings that
 * lose uplinks without an error. Each finding is one sentence for the start-up log, naming what to change. Queue
 * limits (Mosquitto's max_queued_messages, EMQX's max_mqueue_len) are not announced by any broker; the consumer's
 * lag on /metrics shows a backlog before it reaches them (docs/mqtt.md).
 */
export interface ConnackLimits {
  sessionExpiryInterval?: number;
  maximumQoS?: number;
  sharedSubscriptionAvailable?: boolean;
}

export function connackFindings(limits: ConnackLimits | undefined, requestedSessionExpiryS: number): string[] {
  const findings: string[] = [];
  if (limits?.sharedSubscriptionAvailable === false) {
    findings.push(
      'the broker does not offer shared subscriptions: several instances would each receive every uplink; enable them on the broker',
    );
  }
  if (limits?.maximumQoS === 0) {
    findings.push('the broker allows QoS 0 only: uplinks are delivered at most once and a restart loses those in flight; allow QoS 1');
  }
  const expiry = limits?.sessionExpiryInterval;
  if (expiry !== undefined && expiry < requestedSessionExpiryS) {
    findings.push(
      `the broker keeps a consumer session ${expiry} s, not the ${requestedSessionExpiryS} s asked for: uplinks queued for a slot while no instance runs longer than that are dropped; raise the broker's session expiry limit`,
    );
  }
  return findings;
}

/** SUBACK: the QoS granted for the uplink subscription (a reason code of 0x80 or more is a refusal). */
export function subackFinding(granted: number | undefined): string | undefined {
  if (granted === undefined || granted === 1 || granted === 2) return undefined;
  if (granted >= 0x80) return `the broker refused the uplink subscription (reason ${granted}): check its ACL for the consumer's user`;
  return 'the broker granted the uplink subscription QoS 0 only: uplinks are delivered at most once; allow QoS 1';
}
