/**
 * An SMTP server on loopback in its own process, for bench:notify (in the bench's process it would share the
 * platform's event loop and slow what it measures): prints its port, then `<TUID> <epoch ms>` for each e-mail
 * accepted whose subject ends with `on <TUID>`.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

const smtp = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, _session, callback) {
    let raw = '';
    stream.on('data', (chunk: Buffer) => (raw += chunk.toString('utf8')));
    stream.on('end', () => {
      const tuid = /^Subject: .* on (\S+)\s*$/m.exec(raw)?.[1];
      if (tuid) process.stdout.write(`${tuid} ${Date.now()}\n`);
      callback();
    });
  },
});
smtp.listen(0, '127.0.0.1', () => process.stdout.write(`port ${(smtp.server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => smtp.close(() => process.exit(0)));
