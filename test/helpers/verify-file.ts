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
