import type { Command } from 'commander';
import { SigningKeys } from '../../domain/auth/signing-keys.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/** `thingdesk keys rotate`: a new signing key; tokens signed by the old one stay valid until they expire. */
export function registerKeysCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('manage token signing keys');
  keys
    .command('rotate')
    .description('create a new Ed25519 signing key and retire the current one')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const result = await withStore(io, async (deps) => {
        const signingKeys = new SigningKeys(deps.store.signingKeys, deps.clock);
        await signingKeys.reload();
        const previous = (await signingKeys.jwks()).keys.map((k) => k.kid);
        const kid = await signingKeys.rotate();
        return { kid, previous };
      });
      printRecord(io, 'Rotated signing key', { kid: result.kid, stillVerifying: result.previous.join(', ') || 'none' }, !!options.json);
    });
}
