import type { FastifyInstance } from 'fastify';
import { ConfigError } from '../config/config-error.js';

/** A host a browser on this machine can open: a wildcard listen address is reached through localhost. */
export function browsableHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Listens, or fails with a ConfigError naming the variable of the port or host that could not be used. */
export async function listen(http: FastifyInstance, port: number, host: string, variables: { port: string; host: string }): Promise<void> {
  try {
    await http.listen({ port, host });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'EADDRINUSE')
      throw new ConfigError(variables.port, `port ${port} on ${host} is already in use; set ${variables.port} to a free port`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new ConfigError(variables.host, `cannot listen on ${host}`);
    throw error;
  }
}

/** The port a server got (port 0 asks the system for a free one). */
export function portOf(http: FastifyInstance): number | undefined {
  const address = http.server.address();
  return typeof address === 'object' && address ? address.port : undefined;
}
