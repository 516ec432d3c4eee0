import { chmodSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Makes the data directory private to the user Aerie runs as: the folder `0700`, every folder in it
 * `0700` and every file `0600` — the embedded database, mail outbox and keys hold secrets and
 * sign-in codes. Sets `umask 077` so files this process creates are born private; the embedded
 * PostgreSQL (PGlite) chmods its own files to `0666` whatever the umask, so the kernel runs this
 * again once the database is open and after it is closed (in between, the `0700` folder keeps
 * everyone else out).
 * @param dir - `dataDir` from the configuration; created when missing.
 * @returns nothing; a file that vanishes during the walk is skipped.
 * @see README.md "Configuration" (`dataDir`)
 */
export function secureDataDir(dir: string): void {
  process.umask(0o077);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tighten = (path: string) => {
    let stat;
    try {
      stat = lstatSync(path);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) return;
    if ((stat.mode & 0o077) !== 0) chmodSync(path, stat.isDirectory() ? 0o700 : stat.mode & 0o700);
    if (stat.isDirectory()) for (const name of readdirSync(path)) tighten(join(path, name));
  };
  tighten(dir);
}
