/**
 * The broker-alone ceiling's broker: aedes as the embedded broker configures it, with an `authorizePublish` that
 * calls back at once (no parsing, no store) and no authentication. It runs in its own process, as the platform
 * does, so the ceiling and the platform are measured alike. Prints `{"bareBrokerPort":N}` once listening; exits
 * on SIGTERM or SIGINT.
 */
import { createServer } from 'node:net';
import { Aedes } from 'aedes';

const broker = await Aedes.createBroker({
  maxClientsIdLength: 256,
  authorizePublish: (_client, _packet, done) => done(null),
});
const server = createServer(broker.handle);
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ bareBrokerPort: typeof address === 'object' && address ? address.port : 0 })}\n`);
});

const shutDown = () => {
  server.close();
  broker.close(() => process.exit(0));
  // Clients that do not go away must not keep the process alive.
  setTimeout(() => process.exit(0), 2000).unref();
};
process.once('SIGTERM', shutDown).once('SIGINT', shutDown);
