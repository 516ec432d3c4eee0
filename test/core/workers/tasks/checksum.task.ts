// Test task for core.workers: sums the bytes it is given, and says where it ran.
import { threadId } from 'node:worker_threads';

let runs = 0;

/** `{ bytes }` → `{ length, sum, threadId, runs }` (`runs`: this module's runs in its thread). */
export default function checksum(input: { bytes: Uint8Array }): { length: number; sum: number; threadId: number; runs: number } {
  let sum = 0;
  for (const b of input.bytes) sum += b;
  return { length: input.bytes.byteLength, sum, threadId, runs: ++runs };
}
