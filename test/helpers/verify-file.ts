import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { registerAuditFileCommands } from '../../core/audit/chain/verify-file.command.ts';

/** Run `aerie audit verify-file <file> --jwks <file>` in-process: what it printed, and its exit code (0 when it verified). */
export async function verifyFile(file: string, jwks: string): Promise<{ out: string; exitCode: number }> {
  const io = { out: '' };
  const program = new Command('aerie').exitOverride().configureOutput({ writeOut: (s) => (io.out += s), writeErr: () => {} });
  registerAuditFileCommands(program);
  const error = await program.parseAsync(['audit', 'verify-file', file, '--jwks', jwks], { from: 'user' }).then(() => undefined, (e: unknown) => e as CommanderError);
  return { out: io.out, exitCode: error?.exitCode ?? 0 };
}

/**
 * What an offline check of one stored archive file needs: the published checkpoint JWKS written to
 * a file in the server's data dir, and the path of the stored object `blobKey` (embedded driver).
 */
export async function offlineCheckFiles(aerie: { dataDir: string; request: (method: string, path: string) => Promise<{ body: unknown }> }, blobKey: string): Promise<{ jwks: string; file: string }> {
  const jwks = join(aerie.dataDir, 'jwks.json');
  await writeFile(jwks, JSON.stringify((await aerie.request('GET', '/api/public/audit/.well-known/jwks.json')).body));
  return { jwks, file: join(aerie.dataDir, 'blobs', ...blobKey.split('/')) };
}
