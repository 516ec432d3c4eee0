// A pure CPU task for bench/audit-hash.ts: SHA-256 of a fixed 4 KiB buffer, `rounds` times. No I/O,
// no allocation beyond the hash objects, no shared state: what a pool of N threads does with it
// shows the machine's own per-core scaling (cores, turbo, other load), the yardstick of the hash pool.
import { createHash } from 'node:crypto';

const BUFFER = Buffer.alloc(4096, 7);

/** `(rounds: number) => hex digest of the last round` (piscina's default handler). */
export default function sha256Rounds(rounds) {
  let digest = '';
  for (let i = 0; i < rounds; i++) digest = createHash('sha256').update(BUFFER).digest('hex');
  return digest;
}
