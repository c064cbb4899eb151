import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, readFileSync, unlinkSync } from 'node:fs';
import { createPrivateFile, restrictToOwner } from './private-files.js';

/**
 * The key file of a SQLite store run without SIGNING_KEY_SEALING_KEY: `<store>.sealing-key`, beside the store and
 * never inside it, holding 32 random bytes as base64. It is made on the first start (0600, O_EXCL, never through a
 * symbolic link), so `npm start` needs no configuration and the store file, or a backup of it, still reveals no
 * signing key without it.
 */
export function sealingKeyFilePath(storePath: string): string {
  return `${storePath}.sealing-key`;
}

/** A key read from its file, or just made: `created` says which (a key made in vain is removed again, `discard`). */
export interface SealingKeyFile {
  key: string;
  path: string;
  created: boolean;
}

/**
 * Reads the key file at `path`, or creates it with a new random key when there is none. Throws naming the file
 * when it holds no key (less than 32 bytes of base64), so a truncated file is never taken for a new key.
 */
export function readOrCreateSealingKeyFile(path: string): SealingKeyFile {
  const key = randomBytes(32).toString('base64');
  if (createPrivateFile(path, `${key}\n`)) return { key, path, created: true };
  return { key: readKeyFile(path), path, created: false };
}

/** Removes a key file `readOrCreateSealingKeyFile` just made, when the store turned out to need another key. */
export function discardSealingKeyFile(file: SealingKeyFile): void {
  if (file.created) unlinkSync(file.path);
}

function readKeyFile(path: string): string {
  // O_NOFOLLOW: the key is read from the file of that name, never from wherever a link planted there points.
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  let text: string;
  try {
    text = readFileSync(fd, 'utf8').trim();
  } finally {
    closeSync(fd);
  }
  if (Buffer.from(text, 'base64').length < 32) throw new Error(`the key file ${path} holds no key (32 random bytes as base64 expected)`);
  restrictToOwner(path);
  return text;
}
