/**
 * {@link BoxHardware} on an Espruino board: `Storage` for flash, `E.hwRand()` for randomness,
 * `getTime()` for the clock, `setWatch` on a pin for the tamper switch, `console.log` for output.
 * Only Espruino globals are used, so the bundle also runs in a bare `vm` context that fakes them.
 */
import type { BoxHardware } from '../hardware.ts';

/** The subset of Espruino's `Storage` module the box uses. */
export interface EspruinoStorage {
  /** File contents, or `undefined` when absent. */
  read(name: string): string | undefined;
  /** Write a whole file; `false` when flash is full. */
  write(name: string, data: string): boolean;
  /** Delete a file. */
  erase(name: string): void;
}

/** Espruino globals, as declared by the board firmware. */
declare const E: { hwRand(): number };
declare function getTime(): number;
declare function setWatch(fn: () => void, pin: unknown, opts: { repeat: boolean; edge: string; debounce: number }): unknown;
declare function require(name: 'Storage'): EspruinoStorage;

/**
 * Build the board's hardware.
 * @param tamperPin - the pin wired to the tamper switch (rising edge = tamper), e.g. `BTN`
 * @returns the hardware for {@link createBox}
 * @throws Error from `randomBytes` when the firmware has no hardware RNG (`E.hwRand`)
 */
export function espruinoHardware(tamperPin: unknown): BoxHardware {
  const storage = require('Storage');
  return {
    storage: {
      read: (name) => storage.read(name),
      write: (name, value) => {
        // Storage.write returns false when flash is full; a box that cannot persist must not go on.
        if (storage.write(name, value) === false) throw new Error('Storage write failed');
      },
      erase: (name) => storage.erase(name),
    },
    randomBytes(length) {
      if (typeof E === 'undefined' || typeof E.hwRand !== 'function') throw new Error('no hardware RNG');
      const out = new Uint8Array(length);
      for (let i = 0; i < length; i += 4) {
        const r = E.hwRand();
        for (let k = 0; k < 4 && i + k < length; k++) out[i + k] = (r >>> (8 * k)) & 255;
      }
      return out;
    },
    now: () => getTime(),
    onTamper(handler) {
      setWatch(handler, tamperPin, { repeat: true, edge: 'rising', debounce: 50 });
    },
    print: (line) => console.log(line),
  };
}
