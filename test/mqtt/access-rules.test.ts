import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { brokerAclOf, isFilterWithin, mayPublish, maySubscribe, type MqttPrincipal } from '../../src/mqtt/access-rules.js';

const gateway: MqttPrincipal = { username: 'gw', organizationId: 'acme', kind: 'gateway' };
const integration: MqttPrincipal = { username: 'feed', organizationId: 'acme', kind: 'integration' };
const feed = 'thingdesk/{org}/data/{group}/{tuid}/{tsmId}';

describe('MQTT access rules', () => {
  const publishCases: [MqttPrincipal, string, boolean][] = [
    [gateway, 'thingdesk/acme/up/GW-1', true],
    [gateway, 'thingdesk/other/up/GW-1', false],
    [gateway, 'thingdesk/acme/down/T-1', false],
    [gateway, 'thingdesk/acme/up/GW-1/extra', false],
    [gateway, 'thingdesk/acme/data/unassigned/T/1110', false],
    [integration, 'thingdesk/acme/up/GW-1', false],
    [integration, 'thingdesk/acme/data/unassigned/T/1110', false],
  ];
  for (const [principal, topic, allowed] of publishCases) {
    test(`${principal.kind} publish to ${topic}: ${allowed ? 'allowed' : 'refused'}`, () =>
      assert.equal(mayPublish(principal, topic), allowed));
  }

  const subscribeCases: [MqttPrincipal, string, boolean][] = [
    [gateway, 'thingdesk/acme/down/+', true],
    [gateway, 'thingdesk/acme/down/T-1', true],
    [gateway, 'thingdesk/acme/down/#', true],
    [gateway, 'thingdesk/other/down/+', false],
    [gateway, 'thingdesk/+/down/+', false],
    [gateway, 'thingdesk/acme/up/+', false],
    [gateway, 'thingdesk/acme/#', false],
    [gateway, '#', false],
    [gateway, '$SYS/#', false],
    [integration, 'thingdesk/acme/data/#', true],
    [integration, 'thingdesk/acme/data/+/+/+', true],
    [integration, 'thingdesk/acme/data/north/T-1/1110', true],
    [integration, 'thingdesk/acme/alerts', true],
    [integration, 'thingdesk/other/data/#', false],
    [integration, 'thingdesk/other/alerts', false],
    [integration, 'thingdesk/acme/down/+', false],
    [integration, 'thingdesk/acme/up/+', false],
    [integration, 'thingdesk/+/data/#', false],
    [integration, 'thingdesk/acme/data/+/+/+/+', false],
    [integration, 'thingdesk/acme/#', false],
  ];
  for (const [principal, filter, allowed] of subscribeCases) {
    test(`${principal.kind} subscribe to ${filter}: ${allowed ? 'allowed' : 'refused'}`, () =>
      assert.equal(maySubscribe(principal, filter, feed), allowed));
  }

  test('a custom feed template is respected', () => {
    const custom = 'cloudext/json/pr/fi/{org}/{group}/{tuid}/{tsmId}';
    assert.equal(maySubscribe(integration, 'cloudext/json/pr/fi/acme/#', custom), true);
    assert.equal(maySubscribe(integration, 'cloudext/json/pr/fi/other/#', custom), false);
    assert.equal(maySubscribe(integration, 'cloudext/json/pr/+/acme/#', custom), false);
  });

  test('a filter may narrow a pattern but never widen it', () => {
    assert.equal(isFilterWithin('a/b/+', ['a', 'b', '+']), true);
    assert.equal(isFilterWithin('a/+/c', ['a', 'b', '+']), false);
    assert.equal(isFilterWithin('a/b', ['a', 'b', '+']), false);
    assert.equal(isFilterWithin('a/b/c/d', ['a', 'b', '+']), false);
    assert.equal(isFilterWithin('a/b/#/c', ['a', 'b', '+', '+']), false);
    assert.equal(isFilterWithin('a/b/x+y', ['a', 'b', '+']), false);
  });

  // A managed broker (MQTT_AUTH=mosquitto-dynsec) gets the rules as patterns: they must decide every case above alike.
  const matches = (pattern: string, topic: string) => isFilterWithin(topic, pattern.split('/')) && !/[+#]/.test(topic);
  for (const [principal, topic, allowed] of publishCases) {
    test(`broker ACL: ${principal.kind} publish to ${topic}: ${allowed ? 'allowed' : 'refused'}, as the rule`, () =>
      assert.equal(
        brokerAclOf(principal.kind, principal.organizationId, feed).publish.some((pattern) => matches(pattern, topic)),
        allowed,
      ));
  }
  for (const [principal, filter, allowed] of subscribeCases) {
    test(`broker ACL: ${principal.kind} subscribe to ${filter}: ${allowed ? 'allowed' : 'refused'}, as the rule`, () =>
      assert.equal(
        brokerAclOf(principal.kind, principal.organizationId, feed).subscribe.some((pattern) => isFilterWithin(filter, pattern.split('/'))),
        allowed,
      ));
  }
});
