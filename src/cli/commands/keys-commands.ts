import type { Command } from 'commander';
import { auditedForEveryOrganization } from '../../domain/audit/audit-recorder.js';
import { auditFields } from '../../domain/audit/audit-types.js';
import { openSigningKeys } from '../../app/signing-key-sealing.js';
import { printRecord, withStore, type CliIo } from '../cli-io.js';

/**
 * `thingdesk keys rotate`: a new signing key; tokens signed by the old one stay valid until they expire.
 * `thingdesk keys reset`: new keys replace all the old ones, which are not read: for a store whose sealing key is
 * lost (SIGNING_KEY_SEALING_KEY or the key file); every token issued before stops verifying.
 */
export function registerKeysCommands(program: Command, io: CliIo): void {
  const keys = program.command('keys').description('manage token signing keys');
  keys
    .command('rotate')
    .description('create a new Ed25519 signing key and retire the current one')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const result = await withStore(io, async (deps, config) => {
        // Sealed as the platform seals them: SIGNING_KEY_SEALING_KEY, or the key file beside a SQLite store.
        const signingKeys = await openSigningKeys(deps.store.signingKeys, deps.clock, config, 'reload');
        const previous = (await signingKeys.jwks()).keys.map((k) => k.kid);
        const kid = await auditedForEveryOrganization(
          deps,
          { action: 'signing_key.rotate', target: { type: 'signing_key', id: null } },
          async () => {
            const kid = await signingKeys.rotate();
            return { result: kid, target: { type: 'signing_key', id: kid }, details: auditFields({ kid }) };
          },
        );
        return { kid, previous };
      });
      printRecord(io, 'Rotated signing key', { kid: result.kid, stillVerifying: result.previous.join(', ') || 'none' }, !!options.json);
    });
  keys
    .command('reset')
    .description('replace every signing key by a new one, unread (the key they were sealed under is lost); every token issued ends')
    .option('--json', 'print the result as JSON')
    .action(async (options: { json?: boolean }) => {
      const kid = await withStore(io, async (deps, config) => {
        const signingKeys = await openSigningKeys(deps.store.signingKeys, deps.clock, config, 'none');
        return auditedForEveryOrganization(deps, { action: 'signing_key.reset', target: { type: 'signing_key', id: null } }, async () => {
          const kid = await signingKeys.reset();
          return { result: kid, target: { type: 'signing_key', id: kid }, details: auditFields({ kid }) };
        });
      });
      printRecord(io, 'Replaced every signing key', { kid, stillVerifying: 'none' }, !!options.json);
    });
}
