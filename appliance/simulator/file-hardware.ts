/**
 * {@link BoxHardware} for the Node simulator (the demo box on a desk): storage is one JSON file,
 * randomness is `crypto.randomBytes`, the clock is the system clock, the tamper input is
 * {@link SimulatedHardware.trip}, output goes to a line printer.
 */
import { randomBytes as nodeRandomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { BoxHardware, BoxStorage } from '../hardware.ts';

/** Name of the storage file inside the simulator directory. */
export const SIMULATOR_STORAGE_FILE = 'roost-box.json';

/** Options for {@link fileHardware}. */
export interface FileHardwareOptions {
  /** Directory holding {@link SIMULATOR_STORAGE_FILE}; created on first write. */
  dir: string;
  /** Clock in Unix seconds; default the system clock. */
  now?: () => number;
  /** Random source; default `crypto.randomBytes`. */
  randomBytes?: (length: number) => Uint8Array;
  /** Output line printer; default `console.log`. */
  print?: (line: string) => void;
}

/** Simulator hardware: the box's view plus a way to trip the tamper switch. */
export interface SimulatedHardware extends BoxHardware {
  /** Trip the tamper input (calls every handler registered with `onTamper`). */
  trip(): void;
  /** Absolute path of the storage file. */
  file: string;
}

/**
 * Storage backed by one JSON file mapping record names to values. Each write replaces the file
 * through a temporary file and a rename, so a crash never leaves half a record.
 * @param file - path of the JSON file (it need not exist)
 * @throws Error when the file exists but is not a JSON object of strings
 */
export function fileStorage(file: string): BoxStorage {
  const readAll = (): Record<string, string> => {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw e;
    }
    const data: unknown = JSON.parse(text);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new Error(file + ' is not a box storage file');
    return data as Record<string, string>;
  };
  const writeAll = (data: Record<string, string>) => {
    mkdirSync(dirname(file), { recursive: true });
    const tmp = file + '.' + process.pid + '.tmp';
    writeFileSync(tmp, JSON.stringify(data, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, file);
  };
  return {
    read: (name) => {
      const v = readAll()[name];
      return typeof v === 'string' ? v : undefined;
    },
    write: (name, value) => {
      const data = readAll();
      data[name] = value;
      writeAll(data);
    },
    erase: (name) => {
      const data = readAll();
      delete data[name];
      writeAll(data);
    },
  };
}

/**
 * Build the simulator's hardware.
 * @param opts - storage directory, and optional clock (seconds), random source and printer
 * @example
 * const hw = fileHardware({ dir: './data/roost-box' });
 * const box = createBox(hw, nobleP256);
 * hw.trip(); // box prints "TAMPER DEMO-0001 erased"
 */
export function fileHardware(opts: FileHardwareOptions): SimulatedHardware {
  const file = join(opts.dir, SIMULATOR_STORAGE_FILE);
  const handlers: Array<() => void> = [];
  return {
    file,
    storage: fileStorage(file),
    randomBytes: opts.randomBytes ?? ((n) => new Uint8Array(nodeRandomBytes(n))),
    now: opts.now ?? (() => Date.now() / 1000),
    onTamper: (handler) => {
      handlers.push(handler);
    },
    print: opts.print ?? ((line) => console.log(line)),
    trip: () => {
      for (const h of handlers) h();
    },
  };
}
