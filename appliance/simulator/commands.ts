/**
 * `aerie box …`: the demo box on a desk. Mount with {@link registerBoxCommands}.
 *
 * ```
 * aerie box init --id DEMO-0001 --demo --pin https://aerie.example/api/roost/rearm-public-key
 * aerie box status
 * aerie box tamper
 * aerie box nonce
 * aerie box rearm <ticket>
 * ```
 * Every line is what the box itself prints; a refusal prints `REFUSED <CODE>: …` and sets exit code 1.
 */
import type { Command } from 'commander';
import { createBox, type Box, type BoxResult } from '../box.ts';
import { nobleP256 } from '../p256-noble.ts';
import { loadRecord } from '../box-record.ts';
import { refusalLine } from '../refusal-codes.ts';
import { fileHardware, type SimulatedHardware } from './file-hardware.ts';
import { resolvePin } from './resolve-pin.ts';

/** Storage directory used when neither `--dir` nor `AERIE_BOX_DIR` is given. */
export const DEFAULT_BOX_DIR = './data/roost-box';

/** Injection points for {@link registerBoxCommands}; all optional. */
export interface BoxCommandOptions {
  /** Storage directory default (overridden by `--dir`); default `AERIE_BOX_DIR` or {@link DEFAULT_BOX_DIR}. */
  dir?: string;
  /** Box clock, Unix seconds; default the system clock. */
  now?: () => number;
  /** Random source; default `crypto.randomBytes`. */
  randomBytes?: (length: number) => Uint8Array;
  /** `fetch` used for `--pin <url>`; default global `fetch`. */
  fetch?: typeof fetch;
  /** Where box lines go; default `console.log`. */
  print?: (line: string) => void;
  /** Called with 1 when the box refuses; default sets `process.exitCode`. */
  setExitCode?: (code: number) => void;
}

/**
 * Add the `box` command and its subcommands (`init`, `status`, `tamper`, `nonce`, `rearm`) to a
 * commander program.
 * @param program - the `aerie` program (or any commander `Command`)
 * @param options - injection points for tests and embedding
 * @returns the `box` command
 * @example
 * const program = new Command('aerie');
 * registerBoxCommands(program);
 * await program.parseAsync(process.argv);
 */
export function registerBoxCommands(program: Command, options: BoxCommandOptions = {}): Command {
  const print = options.print ?? ((line: string) => console.log(line));
  const setExitCode = options.setExitCode ?? ((code: number) => void (process.exitCode = code));

  const open = (cmd: Command): { hw: SimulatedHardware; box: Box } => {
    const dir: string = cmd.optsWithGlobals().dir ?? options.dir ?? process.env.AERIE_BOX_DIR ?? DEFAULT_BOX_DIR;
    const hw = fileHardware({ dir, now: options.now, randomBytes: options.randomBytes, print });
    return { hw, box: createBox(hw, nobleP256) };
  };
  const finish = (result: BoxResult<unknown>) => {
    if (!result.ok) setExitCode(1);
  };

  const box = program
    .command('box')
    .description('the roost signing box simulator (a demo box on a desk), stored in a file')
    .option('--dir <path>', 'box storage directory (default $AERIE_BOX_DIR or ' + DEFAULT_BOX_DIR + ')');

  box
    .command('init')
    .description('provision the box: id, demo or production, and the pinned re-arm public key')
    .requiredOption('--id <id>', 'box id, 4-40 characters of A-Z 0-9 -')
    .option('--demo', 'a demo box (re-armable after tamper); without it the box is production', false)
    .requiredOption('--pin <pem|url>', 'PEM file, PEM text, or the server URL /api/roost/rearm-public-key')
    .option('--fingerprint <hex>', 'refuse unless the key has this SHA-256 SPKI fingerprint')
    .action(async (opts: { id: string; demo: boolean; pin: string; fingerprint?: string }, cmd: Command) => {
      const { box: b } = open(cmd);
      let resolved;
      try {
        resolved = await resolvePin(opts.pin, { fetch: options.fetch, expectFingerprint: opts.fingerprint });
      } catch (e) {
        print(refusalLine('INVALID_PIN') + ' (' + (e as Error).message + ')');
        return setExitCode(1);
      }
      const result = b.provision({ id: opts.id, demo: opts.demo === true, pin: resolved.pin });
      if (result.ok) print('pinned key from ' + resolved.source + ', fingerprint ' + resolved.pin.fingerprint);
      finish(result);
    });

  box
    .command('status')
    .description('print id, mode, state, key fingerprint and any outstanding nonce')
    .action((_opts: unknown, cmd: Command) => finish(open(cmd).box.status()));

  box
    .command('tamper')
    .description('trip the tamper switch: the box erases itself')
    .action((_opts: unknown, cmd: Command) => {
      const { hw, box: b } = open(cmd);
      if (!loadRecord(hw.storage)) return finish(b.tamper());
      hw.trip(); // through the tamper input, as on the board
    });

  box
    .command('nonce')
    .description('show the re-arm nonce of an erased demo box (issued once, single use)')
    .action((_opts: unknown, cmd: Command) => finish(open(cmd).box.nonce()));

  box
    .command('rearm')
    .description('re-arm an erased demo box with a ticket from POST /api/org/{slug}/roost/rearm-ticket')
    .argument('<ticket>', 'the ticket, exactly as issued')
    .action((ticket: string, _opts: unknown, cmd: Command) => finish(open(cmd).box.rearm(ticket)));

  return box;
}
