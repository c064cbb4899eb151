/**
 * The ceiling of the REST benchmark: a bare fastify server with one route returning a constant JSON object, in its
 * own process (as the platform is), loaded exactly like the platform's routes. Its throughput is what this machine
 * can do for HTTP at all with fastify and autocannon on it; the platform's routes are reported as a share of it.
 * The route takes a path parameter (ignored) so the load can vary the path per request as it does for
 * `GET /things/{tuid}`. Prints `constant server listening on PORT` once ready.
 */
import Fastify from 'fastify';

const app = Fastify({ logger: false });
const constant = { data: { status: 'ok', answer: 42 } };
app.get('/constant/:key', async () => constant);

const close = () => void app.close().finally(() => process.exit(0));
process.once('SIGTERM', close).once('SIGINT', close);

await app.listen({ port: 0, host: '127.0.0.1' });
const address = app.server.address();
process.stdout.write(`constant server listening on ${typeof address === 'object' && address ? address.port : 0}\n`);
