import ipaddr from 'ipaddr.js';

/**
 * Which addresses a webhook may reach (SPEC section 11, Safety). Only global unicast addresses; loopback, private
 * (RFC 1918), link-local, CGNAT, unique-local, unspecified, multicast, broadcast, reserved and the IPv6 forms that
 * embed an IPv4 address (mapped, NAT64, 6to4, Teredo) are refused unless `WEBHOOK_ALLOW_PRIVATE` covers them; the
 * cloud metadata addresses are refused always. An IPv4-mapped IPv6 address is judged as the IPv4 address it maps.
 */
const metadataAddresses = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'];

export type AddressAllowList = readonly [ipaddr.IPv4 | ipaddr.IPv6, number][];

/** The allow list from WEBHOOK_ALLOW_PRIVATE's CIDRs (checked by the configuration). */
export function allowListOf(cidrs: readonly string[]): AddressAllowList {
  return cidrs.map((cidr) => {
    if (cidr.includes('/')) return ipaddr.parseCIDR(cidr);
    const address = ipaddr.parse(cidr);
    return [address, address.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
  });
}

function normalized(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
}

/** Why an address is refused (undefined: it may be reached). `text` is an IP address as DNS or a URL gives it. */
export function refusedAddress(text: string, allow: AddressAllowList): string | undefined {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = normalized(ipaddr.parse(text.replace(/^\[|\]$/g, '')));
  } catch {
    return 'not an IP address';
  }
  const shown = parsed.toString();
  if (metadataAddresses.some((m) => normalized(ipaddr.parse(m)).toString() === shown)) return 'metadata address';
  const range = parsed.range();
  if (range === 'unicast') return undefined;
  for (const [network, bits] of allow) {
    if (network.kind() === parsed.kind() && parsed.match(network as never, bits)) return undefined;
  }
  return `${range} address`;
}

/** The host of a URL when it is an IP literal (brackets removed), else undefined. WHATWG URLs already write 2130706433 and 0177.0.0.1 as 127.0.0.1. */
export function literalHost(url: URL): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  return ipaddr.isValid(host) ? host : undefined;
}
