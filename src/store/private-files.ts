import { chmodSync, closeSync, constants, lstatSync, openSync, writeSync } from 'node:fs';

/**
 * Files only the platform's user may read: the SQLite store (it holds password hashes, sealed secrets and every
 * message), its `-wal` and `-shm`, its backups and the key file that seals the token-signing keys. SQLite creates
 * files with 0644 less the umask, world-readable on most systems, so these are created here first, 0600, and
 * SQLite opens what exists. SQLite gives the `-wal`, `-shm` and `-journal` files it creates the mode of their
 * database file (unix VFS, robust_open with the database's permissions), so they follow.
 */
export const privateMode = 0o600;

/**
 * Creates `path` as a file of mode 0600 holding `content` (empty by default), or returns false when something is
 * already there, be it a file or a symbolic link, dangling or not (O_EXCL: an existing name is never opened, and a
 * link never followed). The umask can only take bits away from 0600, so the file is never readable by others.
 */
export function createPrivateFile(path: string, content = ''): boolean {
  let fd: number;
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, privateMode);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    if (content !== '') writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether `path` is a symbolic link (dangling or not); false when nothing is there. */
export function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/** A SQLite store's files: the database, then the write-ahead log and its shared-memory index. */
export const sqliteFileSuffixes = ['', '-wal', '-shm'] as const;

/**
 * Makes the store at `path` private before SQLite opens it: a new store is created empty and 0600 (its `-wal` and
 * `-shm` then follow), an existing one loses the group and other permissions an older version left on it.
 */
export function prepareSqliteStoreFile(path: string): void {
  if (createPrivateFile(path)) return;
  for (const suffix of sqliteFileSuffixes) restrictToOwner(path + suffix);
}

/**
 * Takes group and other permissions off `path` when it is a file of ours that has them: a store an older version
 * left world-readable (0644) becomes private at the next start. Symbolic links are left alone (their target is the
 * operator's choice), and so is a file owned by another user, which cannot be changed and is the operator's layout.
 */
export function restrictToOwner(path: string): void {
  let stats;
  try {
    stats = lstatSync(path);
  } catch {
    return;
  }
  if (!stats.isFile() || (stats.mode & 0o077) === 0) return;
  if (typeof process.getuid === 'function' && stats.uid !== process.getuid()) return;
  chmodSync(path, stats.mode & 0o700);
}
