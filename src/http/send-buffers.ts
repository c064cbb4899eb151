import type { FastifyReply } from 'fastify';

/**
 * Answers 200 with `parts` as the body, in order, written at once: Node corks the socket for writes in the same
 * tick, so they leave as one writev. Joining them first would allocate a fresh buffer the size of the answer (a
 * megabyte for a year of hours), whose page faults cost more than the copy. The reply is hijacked, so fastify's
 * serialization and onSend hooks are skipped (none applies to such a route); its headers set so far (request id,
 * CORS) are written, and its onResponse hooks (metrics, the request log) run when the body is out.
 */
export function sendBuffers(reply: FastifyReply, contentType: string, parts: readonly Buffer[]): void {
  let length = 0;
  for (const part of parts) length += part.byteLength;
  reply.hijack();
  const response = reply.raw;
  for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) response.setHeader(name, value);
  response.writeHead(200, { 'content-type': contentType, 'content-length': length });
  for (const part of parts) response.write(part);
  response.end();
}
