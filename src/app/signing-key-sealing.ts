import { randomBytes } from 'node:crypto';
import type { Config } from '../config/config.js';
import { ConfigError } from '../config/config-error.js';
import type { Clock } from '../domain/clock.js';
import { SealedUnderAnotherKeyError, SigningKeys } from '../domain/auth/signing-keys.js';
import { discardSealingKeyFile, readOrCreateSealingKeyFile, sealingKeyFilePath, type SealingKeyFile } from '../store/sealing-key-file.js';
import type { Store } from '../store/store.js';

const variable = 'SIGNING_KEY_SEALING_KEY';
const guide = 'docs/operations.md, Signing keys';

/** Where the key sealing the token-signing keys comes from, as an operator would look for it. */
type SealingKeySource = { kind: 'variable'; key: string } | { kind: 'file'; file: SealingKeyFile } | { kind: 'memory'; key: string };

/**
 * The key that seals the token-signing keys at rest (docs/decisions.md, Signing keys sealed at rest):
 * - SIGNING_KEY_SEALING_KEY when it is set;
 * - on PostgreSQL it is required: instances sharing the store must share the key, and a file on one host is not
 *   shared (a ConfigError naming the variable);
 * - on a SQLite file, otherwise, the key file beside the store (`<store>.sealing-key`), made on the first start;
 * - on an in-memory SQLite store, a key of this process (the store goes with it).
 */
function sealingKeySource(config: Pick<Config, 'databaseUrl' | 'signingKeySealingKey'>): SealingKeySource {
  if (config.signingKeySealingKey !== undefined) return { kind: 'variable', key: config.signingKeySealingKey };
  if (!config.databaseUrl.startsWith('file:')) {
    throw new ConfigError(
      variable,
      `is required with PostgreSQL: it seals the token-signing keys in the store, and every instance needs the same one (e.g. openssl rand -base64 32; ${guide})`,
    );
  }
  const path = config.databaseUrl.slice('file:'.length);
  if (path === ':memory:') return { kind: 'memory', key: randomBytes(32).toString('base64') };
  try {
    return { kind: 'file', file: readOrCreateSealingKeyFile(sealingKeyFilePath(path)) };
  } catch (error) {
    throw new ConfigError(variable, `is unset and ${(error as Error).message}: set it, or put back the key file (${guide})`);
  }
}

/**
 * The platform's signing keys under the key found for this store. `load`: `start` (serve) loads them, seals those
 * an older version stored in plain text and makes the first one on an empty store (`SigningKeys.start`); `reload`
 * only loads them (`keys rotate`); `none` reads nothing (`keys reset`, which replaces them).
 * A store whose keys do not open with the key found fails with one ConfigError naming SIGNING_KEY_SEALING_KEY, and a
 * key file made for it is removed again, so putting the right one back is all it takes.
 */
export async function openSigningKeys(
  store: Store['signingKeys'],
  clock: Clock,
  config: Pick<Config, 'databaseUrl' | 'signingKeySealingKey'>,
  load: 'start' | 'reload' | 'none' = 'start',
): Promise<SigningKeys> {
  const source = sealingKeySource(config);
  const keys = new SigningKeys(store, clock, source.kind === 'file' ? source.file.key : source.key);
  try {
    if (load === 'start') await keys.start();
    else if (load === 'reload') await keys.reload();
  } catch (error) {
    if (!(error instanceof SealedUnderAnotherKeyError)) throw error;
    if (source.kind === 'file') discardSealingKeyFile(source.file);
    throw sealedElsewhere(source);
  }
  return keys;
}

function sealedElsewhere(source: SealingKeySource): ConfigError {
  const problem = 'the token-signing keys in the store were sealed under another key';
  // If that key is lost for good, new keys replace the old (every token issued before then ends).
  const remedy = `(lost for good: thingdesk keys reset; ${guide})`;
  if (source.kind === 'variable') return new ConfigError(variable, `does not open them: ${problem}; set it to that key ${remedy}`);
  if (source.kind === 'file' && source.file.created)
    return new ConfigError(
      variable,
      `is unset and there is no key file ${source.file.path}, but ${problem}: set it to that key, or put back its key file ${remedy}`,
    );
  if (source.kind === 'file')
    return new ConfigError(
      variable,
      `is unset and the key file ${source.file.path} does not open them: ${problem}; set it to that key ${remedy}`,
    );
  return new ConfigError(variable, `is unset: ${problem}; set it to that key ${remedy}`);
}
