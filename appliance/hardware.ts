/**
 * The small hardware interface the box logic runs on. Each target (the Node simulator, the
 * Espruino board, a test double) supplies one; the box logic itself never touches a platform API.
 *
 * @see docs/appliance.md
 */

/**
 * Persistent key/value storage for short text records (Espruino `Storage` semantics).
 * Names are at most 28 characters; values are strings (the box stores JSON).
 */
export interface BoxStorage {
  /** Read a record; `undefined` when it does not exist. */
  read(name: string): string | undefined;
  /** Create or replace a record. Must be durable when it returns. */
  write(name: string, value: string): void;
  /** Remove a record; no error when it does not exist. */
  erase(name: string): void;
}

/** Everything the box needs from its platform. */
export interface BoxHardware {
  /** Persistent storage that survives power loss. */
  storage: BoxStorage;
  /**
   * Cryptographically strong random bytes (hardware RNG on the board).
   * @param length - number of bytes wanted
   */
  randomBytes(length: number): Uint8Array;
  /** Current time as Unix seconds (may be fractional; the box floors it). */
  now(): number;
  /**
   * Register the tamper-input handler. The platform calls `handler` every time the tamper
   * switch trips (a pin edge on the board, `aerie box tamper` in the simulator).
   */
  onTamper(handler: () => void): void;
  /** Write one line to the box's display or serial console. */
  print(line: string): void;
}

/**
 * In-memory storage, for tests and for composing other backends.
 * @param initial - records to start with
 * @returns a {@link BoxStorage} plus `records`, the live backing object
 */
export function memoryStorage(initial: Record<string, string> = {}): BoxStorage & { records: Record<string, string> } {
  const records: Record<string, string> = {};
  for (const k in initial) records[k] = initial[k];
  return {
    records,
    read: (name) => (Object.prototype.hasOwnProperty.call(records, name) ? records[name] : undefined),
    write: (name, value) => {
      records[name] = value;
    },
    erase: (name) => {
      delete records[name];
    },
  };
}
