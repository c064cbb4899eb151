/** The webhook address rules (SPEC section 11, Safety): the refused ranges, IPv4-mapped forms, the allow list, metadata. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { allowListOf, literalHost, refusedAddress } from '../../../src/domain/webhooks/address-rules.js';

const none = allowListOf([]);

test('loopback, private, link-local, CGNAT, ULA, unspecified, multicast and their IPv4-mapped forms are refused', () => {
  for (const address of [
    '127.0.0.1',
    '::1',
    '0.0.0.0',
    '::',
    '10.1.2.3',
    '172.16.0.1',
    '192.168.1.10',
    '169.254.10.1',
    '100.64.0.1',
    'fd00::1',
    'fe80::1',
    '224.0.0.1',
    'ff02::1',
    '255.255.255.255',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:169.254.169.254',
    '64:ff9b::a00:1',
  ])
    assert.ok(refusedAddress(address, none), `${address} must be refused`);
  for (const address of ['8.8.8.8', '1.1.1.1', '2001:4860:4860::8888', '::ffff:8.8.8.8'])
    assert.equal(refusedAddress(address, none), undefined, address);
});

test('WEBHOOK_ALLOW_PRIVATE admits its CIDRs, never the metadata addresses', () => {
  const allow = allowListOf(['192.168.1.0/24', '169.254.0.0/16', 'fd00::/8', '127.0.0.1']);
  assert.equal(refusedAddress('192.168.1.20', allow), undefined);
  assert.equal(refusedAddress('::ffff:192.168.1.20', allow), undefined);
  assert.equal(refusedAddress('127.0.0.1', allow), undefined);
  assert.ok(refusedAddress('192.168.2.1', allow));
  assert.equal(refusedAddress('metadata address', allow), 'not an IP address');
  assert.equal(refusedAddress('169.254.169.254', allow), 'metadata address');
  assert.equal(refusedAddress('::ffff:169.254.169.254', allow), 'metadata address');
  assert.equal(refusedAddress('fd00:ec2::254', allow), 'metadata address');
});

test('decimal and octal IPv4 literals are read as the address they name', () => {
  assert.equal(literalHost(new URL('http://2130706433/')), '127.0.0.1');
  assert.equal(literalHost(new URL('http://0177.0.0.1/')), '127.0.0.1');
  assert.equal(literalHost(new URL('http://[::ffff:a9fe:a9fe]/')), '::ffff:a9fe:a9fe');
  assert.equal(literalHost(new URL('http://example.com/')), undefined);
});
