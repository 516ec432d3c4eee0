/**
 * `aerie seal verify <proof.json> --public-key <file>`: checks a `SealProof` offline, with no
 * database, exactly as a third party would (docs/seals.md).
 *
 * - `proof.json` holds a `SealProof`, or an audit record carrying it in `sp` (or `businessData.sp`).
 * - the key file holds a JWK (JSON), an SPKI PEM, or a COSE_Key (raw bytes or base64url text).
 * - exit code 0 when every check passes, 1 otherwise (including unreadable files).
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseCanonicalLine } from './binding.ts';
import { verifySealProof, type SealProof, type SealPublicKey } from './seal-proof.ts';

/** Where the command writes (`out` for results, `err` for unreadable input); tests pass their own sinks. */
export interface SealCommandIO {
  out: (text: string) => void;
  err: (text: string) => void;
}

const defaultIO: SealCommandIO = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
};

/**
 * Adds `seal verify <proof.json> --public-key <jwk-or-pem-file> [--origin <o>] [--rp-id <id>] [--json]`
 * under a `seal` command of `program`; sets `process.exitCode = 1` when the proof does not verify.
 * @returns the `seal` command, so callers can add siblings.
 * @example registerSealCommands(new Command('aerie')).parseAsync(process.argv)
 * @see docs/seals.md
 */
export function registerSealCommands(program: Command, io: SealCommandIO = defaultIO): Command {
  const seal = program.command('seal').description('Passkey seals: offline checks of seal proofs');
  seal
    .command('verify')
    .description('Verify a SealProof (aerie-stepup-proof-v1) with only the credential public key')
    .argument('<proof.json>', 'SealProof JSON, or an audit record with the proof in "sp"')
    .requiredOption('--public-key <file>', 'credential public key: JWK JSON, SPKI PEM, or COSE_Key (bytes or base64url)')
    .option('--origin <origin>', 'also require this clientDataJSON origin')
    .option('--rp-id <rpId>', 'also require this RP ID hash in authenticatorData')
    .option('--json', 'print the result as JSON')
    .action(async (proofPath: string, opts: { publicKey: string; origin?: string; rpId?: string; json?: boolean }) => {
      let proof: SealProof;
      let key: SealPublicKey;
      try {
        proof = extractProof(JSON.parse(await readFile(proofPath, 'utf8')));
        key = readPublicKey(await readFile(opts.publicKey));
      } catch (err) {
        io.err(`seal verify: ${(err as Error).message}\n`);
        process.exitCode = 1;
        return;
      }
      const result = verifySealProof(proof, key, { origin: opts.origin, rpId: opts.rpId });
      if (opts.json) io.out(`${JSON.stringify({ credentialId: proof.credentialId, ...result }, null, 2)}\n`);
      else io.out(describe(proof, result));
      if (!result.ok) process.exitCode = 1;
    });
  return seal;
}

function extractProof(doc: unknown): SealProof {
  const d = doc as { v?: unknown; sp?: unknown; businessData?: { sp?: unknown } } | null;
  const proof = d?.v !== undefined ? d : (d?.sp ?? d?.businessData?.sp);
  if (!proof || typeof proof !== 'object') throw new Error('no SealProof found (expected "v", "sp" or "businessData.sp")');
  return proof as SealProof;
}

function readPublicKey(bytes: Buffer): SealPublicKey {
  const text = bytes.toString('utf8').trim();
  if (text.startsWith('{')) return JSON.parse(text) as SealPublicKey;
  if (text.startsWith('-----BEGIN')) return text;
  if (/^[A-Za-z0-9_-]+$/.test(text)) return new Uint8Array(Buffer.from(text, 'base64url'));
  return new Uint8Array(bytes);
}

function describe(proof: SealProof, result: ReturnType<typeof verifySealProof>): string {
  const lines = [`Seal proof ${proof.v ?? '(no version)'} · credential ${proof.credentialId ?? '(none)'}`];
  const rows: [string, string][] = [];
  try {
    const binding = parseCanonicalLine(proof.canonical);
    rows.push(['purpose', binding.purpose], ['subject', JSON.stringify(binding.subject)], ['nonce', binding.nonce]);
    for (const f of binding.fields) rows.push([f.key, JSON.stringify(f.value)]);
  } catch {
    rows.push(['canonical', '(could not be parsed)']);
  }
  if (result.origin) rows.push(['origin', JSON.stringify(result.origin)]);
  if (result.signCount !== undefined) rows.push(['signCount', `${result.signCount}, user verified: ${result.userVerified ? 'yes' : 'no'}`]);
  const width = Math.max(...rows.map(([label]) => label.length));
  for (const [label, value] of rows) lines.push(`  ${label.padEnd(width)} ${value}`);
  const labels: Record<string, string> = {
    wellFormed: 'proof is well formed',
    challengeMatches: 'SHA-256(canonical) equals the clientDataJSON challenge',
    typeIsGet: 'clientDataJSON.type is webauthn.get',
    userPresent: 'user presence flag set',
    signatureValid: 'ES256 signature over authenticatorData ‖ SHA-256(clientDataJSON)',
    originMatches: 'origin as expected',
    rpIdMatches: 'RP ID hash as expected',
  };
  for (const [check, passed] of Object.entries(result.checks)) lines.push(`  ${passed ? 'ok  ' : 'FAIL'}  ${labels[check] ?? check}`);
  lines.push(result.ok ? 'VALID' : `INVALID: ${result.reason}`);
  return `${lines.join('\n')}\n`;
}
