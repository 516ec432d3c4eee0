// Test task for core.workers: answers `size` bytes of `value`, moved back (transferable), and
// whether the buffer it answered last time was detached in this thread (moved, not copied).
import { transferable } from '../../../../core/worker-api.ts';

let last: Uint8Array | undefined;

export default function fill(input: { size: number; value: number }): { bytes: Uint8Array; lastDetached: boolean | null } {
  const lastDetached = last ? last.byteLength === 0 : null;
  last = new Uint8Array(input.size).fill(input.value);
  return transferable({ bytes: last, lastDetached }, [last.buffer as ArrayBuffer]);
}
