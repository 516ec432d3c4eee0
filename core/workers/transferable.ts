/**
 * The mark a task's result carries to have buffers moved back to the caller (read by the worker
 * bootstrap, `./worker.mjs`). A global symbol: the task module and the bootstrap may hold
 * different instances of this file.
 */
export const TRANSFER_MARK = Symbol.for('aerie.workers.transfer');

/**
 * Marks a task's result so that `buffers` are moved to the calling thread rather than copied
 * (then detached in the worker). Use it in a task module's default export:
 * `return transferable(file, [file.bytes.buffer])`. Called outside a worker the mark is inert
 * (a non-enumerable symbol property): the result is the same object either way.
 *
 * @param value - the result, an object (the mark is set on it).
 * @param buffers - ArrayBuffers inside `value`, each owned whole by it (not a `SharedArrayBuffer`,
 *   nor the pooled slab under a small Node `Buffer`).
 * @returns `value`.
 * @throws TypeError when `value` is not an object.
 */
export function transferable<T extends object>(value: T, buffers: readonly ArrayBuffer[]): T {
  if (typeof value !== 'object' || value === null) throw new TypeError('transferable: the result must be an object');
  Object.defineProperty(value, TRANSFER_MARK, { value: [...buffers], enumerable: false, configurable: true });
  return value;
}
