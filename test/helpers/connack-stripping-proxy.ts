import { connect, createServer, type Server, type Socket } from 'node:net';
import { tieSockets } from './tcp-proxy.js';

/** MQTT 5 CONNACK property: Maximum Packet Size (a four-byte integer). */
const maximumPacketSize = 0x27;

/**
 * A TCP proxy on 127.0.0.1 in front of an MQTT 5 broker that removes the Maximum Packet Size from every CONNACK:
 * the broker keeps its limit (and disconnects a client that exceeds it) but no longer announces it, as some
 * brokers do not. Everything else passes unchanged.
 */
export class ConnackStrippingProxy {
  private readonly sockets = new Set<Socket>();
  private readonly server: Server;
  private port = 0;

  private constructor(private readonly target: { host: string; port: number }) {
    this.server = createServer((client) => this.forward(client));
  }

  static async start(target: { host: string; port: number }): Promise<ConnackStrippingProxy> {
    const proxy = new ConnackStrippingProxy(target);
    await new Promise<void>((resolve, reject) => proxy.server.once('error', reject).listen(0, '127.0.0.1', resolve));
    const address = proxy.server.address();
    if (typeof address !== 'object' || !address) throw new Error('no port for the proxy');
    proxy.port = address.port;
    return proxy;
  }

  get url(): string {
    return `mqtt://127.0.0.1:${this.port}`;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise((resolve) => this.server.close(resolve));
  }

  private forward(client: Socket): void {
    const upstream = connect(this.target.port, this.target.host);
    tieSockets(client, upstream, this.sockets);
    client.pipe(upstream);
    let head: Buffer | undefined = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      if (!head) {
        client.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const rewritten = withoutMaximumPacketSize(head);
      if (!rewritten) return;
      head = undefined;
      client.write(rewritten);
    });
  }
}

/**
 * The first bytes from the broker with its CONNACK rewritten (and whatever followed it), or undefined while the
 * CONNACK is not complete yet.
 */
function withoutMaximumPacketSize(bytes: Buffer): Buffer | undefined {
  const length = readVarint(bytes, 1);
  if (!length || bytes.length < length.next + length.value) return undefined;
  const packetEnd = length.next + length.value;
  if (bytes[0] !== 0x20) return bytes;
  // Flags, reason code, then the properties' length and the properties.
  const properties = readVarint(bytes, length.next + 2);
  if (!properties) return bytes;
  const kept: Buffer[] = [];
  let at = properties.next;
  const end = properties.next + properties.value;
  while (at < end) {
    const id = bytes[at]!;
    const size = propertySize(id, bytes, at + 1);
    if (id !== maximumPacketSize) kept.push(bytes.subarray(at, at + 1 + size));
    at += 1 + size;
  }
  const propertyBytes = Buffer.concat(kept);
  const body = Buffer.concat([bytes.subarray(length.next, length.next + 2), varint(propertyBytes.length), propertyBytes]);
  return Buffer.concat([Buffer.from([0x20]), varint(body.length), body, bytes.subarray(packetEnd)]);
}

/** The size of a CONNACK property's value (MQTT 5, section 3.2.2.3). */
function propertySize(id: number, bytes: Buffer, at: number): number {
  const twoByteLength = (offset: number) => 2 + bytes.readUInt16BE(offset);
  switch (id) {
    case 0x24: // Maximum QoS
    case 0x25: // Retain Available
    case 0x28: // Wildcard Subscription Available
    case 0x29: // Subscription Identifiers Available
    case 0x2a: // Shared Subscription Available
      return 1;
    case 0x13: // Server Keep Alive
    case 0x21: // Receive Maximum
    case 0x22: // Topic Alias Maximum
      return 2;
    case 0x11: // Session Expiry Interval
    case 0x27: // Maximum Packet Size
      return 4;
    case 0x12: // Assigned Client Identifier
    case 0x1a: // Response Information
    case 0x1c: // Server Reference
    case 0x1f: // Reason String
    case 0x15: // Authentication Method
    case 0x16: // Authentication Data
      return twoByteLength(at);
    case 0x26: // User Property: two strings
      return twoByteLength(at) + twoByteLength(at + twoByteLength(at));
    default:
      throw new Error(`unknown CONNACK property 0x${id.toString(16)}`);
  }
}

function readVarint(bytes: Buffer, from: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < 4; i++) {
    if (from + i >= bytes.length) return undefined;
    const byte = bytes[from + i]!;
    value += (byte & 0x7f) * 128 ** i;
    if ((byte & 0x80) === 0) return { value, next: from + i + 1 };
  }
  throw new Error('malformed remaining length');
}

function varint(value: number): Buffer {
  const out: number[] = [];
  do {
    let byte = value % 128;
    value = Math.floor(value / 128);
    if (value > 0) byte |= 0x80;
    out.push(byte);
  } while (value > 0);
  return Buffer.from(out);
}
