/**
 * The artifact an owner flashes (`roost.js`, built here into a temporary directory from the current
 * sources and `appliance/board.json`) must fit the board that `board.json` describes, with a stated
 * margin. The same check must fail with the figures of the boards that were rejected (Espruino
 * Pico first), so it cannot pass trivially.
 *
 * Figures come from Espruino's own board definitions (espruino/Espruino, `boards/*.py`, file and
 * commit in each row). Where the code lives on the board: flashed with `SAVE_ON_SEND=1`, the code
 * is the Storage file `.bootcde`. Espruino reads it as a string that points into flash
 * (`jsvAddressToVar` in src/jsflash.c @ e2453c0b: a native string for memory-mapped flash, a
 * flash string for SPI flash as on Bangle.js 2). Functions parsed from such a string keep their
 * body as another pointer into flash, not a copy (`jspeFunctionDefinitionInternal` in
 * src/jsparse.c @ 0050cd83). So the code text stays in flash, and the flash check is the binding
 * one. The RAM line below is a worst case only: the variables the text would take if it were
 * copied into RAM after all.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildAppliance, type ApplianceBuild } from '../../appliance/build.ts';

/** The fields of `board.json` this check reads (the rest is for the espruino tool). */
interface BoardJson {
  info: { name: string; variables: number; binary_version: string; builtin_modules: string[] };
  chip: { part: string; ram: number; saved_code: { address: number; page_size: number; pages: number; flash_available: number } };
  devices: { BTN1?: { pin: string } };
}

/** A board's code area and variable count, as its Espruino board file gives them. */
interface BoardFigures {
  name: string;
  source: string;
  pageSize: number;
  pages: number;
  variables: number;
}

/** The artifact may use at most this share of the saved-code (Storage) area. */
const FLASH_SHARE = 0.5;

/**
 * Bytes per Espruino variable for a firmware built with `variables` variables. From the table in
 * espruino/Espruino boards/ESP32_IDF4.py @ 0681322c (4095 and 8191 → 13 bytes, 16383 → 14,
 * 65535 → 16). Below 4,096 the table has no row; 12, the smallest variable size, is used there
 * (it gives the largest variable count, the worst case).
 * @param variables - the board file's `variables`
 * @returns bytes per variable
 */
function bytesPerVariable(variables: number): number {
  if (variables <= 4095) return 12;
  if (variables <= 8191) return 13;
  if (variables <= 16383) return 14;
  if (variables <= 65535) return 16;
  throw new Error('no variable format for ' + variables + ' variables');
}

/** How an artifact of `bytes` bytes fits a board. */
interface Fit {
  /** Saved-code (Storage) area in bytes: pages × page_size. */
  codeArea: number;
  /** The most the artifact may take: {@link FLASH_SHARE} of the code area. */
  flashLimit: number;
  flashOk: boolean;
  /** Worst case: variables the code text would take if it were held in RAM. */
  textVariables: number;
  /** The worst case still leaves variables free. */
  ramWorstCaseOk: boolean;
}

/**
 * Check an artifact size against a board's figures.
 * @param bytes - artifact size in bytes
 * @param board - the board's code area and variables
 * @returns the fit
 */
function fit(bytes: number, board: Pick<BoardFigures, 'pageSize' | 'pages' | 'variables'>): Fit {
  const codeArea = board.pageSize * board.pages;
  const flashLimit = Math.floor(codeArea * FLASH_SHARE);
  const textVariables = Math.ceil(bytes / bytesPerVariable(board.variables));
  return { codeArea, flashLimit, flashOk: bytes <= flashLimit, textVariables, ramWorstCaseOk: textVariables < board.variables };
}

/** Boards that were considered and rejected, with their figures as their board files give them. */
const REJECTED: Array<BoardFigures & { expectRamWorstCaseOk: boolean }> = [
  { name: 'Espruino Pico', source: 'boards/PICO_R1_3.py @ 0a63c069', pageSize: 16384, pages: 3, variables: 5100, expectRamWorstCaseOk: false },
  { name: 'Espruino WiFi', source: 'boards/ESPRUINOWIFI.py @ 27d9572c', pageSize: 65536, pages: 1, variables: 7148, expectRamWorstCaseOk: true },
  { name: 'Jolt.js', source: 'boards/JOLTJS.py @ 123354ed', pageSize: 4096, pages: 10, variables: 12000, expectRamWorstCaseOk: true },
  { name: 'MDBT42Q', source: 'boards/MDBT42Q.py @ 78d652d3', pageSize: 4096, pages: 10, variables: 2500, expectRamWorstCaseOk: false },
];

/** Bangle.js 2 as espruino/Espruino boards/BANGLEJS2.py @ 0014dcca gives it; board.json must agree. */
const BANGLEJS2: BoardFigures = { name: 'Bangle.js 2', source: 'boards/BANGLEJS2.py @ 0014dcca', pageSize: 4096, pages: 2048, variables: 12000 };

const board = JSON.parse(readFileSync(join(__dirname, '../../appliance/board.json'), 'utf8')) as BoardJson;
const outDir = mkdtempSync(join(tmpdir(), 'roost-fit-'));
let art: ApplianceBuild;

beforeAll(async () => {
  art = await buildAppliance(outDir);
}, 120_000);
afterAll(() => rmSync(outDir, { recursive: true, force: true }));

describe('appliance/board.json describes the board the artifact is for', () => {
  it('is Bangle.js 2 with the figures of its Espruino board file', () => {
    expect(board.chip.part).toBe('NRF52840');
    expect(board.chip.ram).toBe(256);
    expect(board.chip.saved_code).toMatchObject({ address: 0x60000000, page_size: BANGLEJS2.pageSize, pages: BANGLEJS2.pages, flash_available: 1024 - (38 + 8 + 2) * 4 });
    expect(board.info.variables).toBe(BANGLEJS2.variables);
    expect(board.devices.BTN1?.pin).toBe('D17');
    // what the espruino tool needs offline: firmware version (Storage exists from 1v96) and the built-in modules
    expect(board.info.binary_version).toMatch(/^2v\d\d$/);
    expect(board.info.builtin_modules).toContain('Storage');
  });
});

describe('the built artifact fits the board in board.json', () => {
  it('uses at most half of the saved-code (Storage) area', () => {
    const f = fit(art.bytes, { pageSize: board.chip.saved_code.page_size, pages: board.chip.saved_code.pages, variables: board.info.variables });
    expect(f.codeArea).toBe(8 * 1024 * 1024);
    expect(art.bytes).toBeGreaterThan(0);
    expect(f.flashOk, art.bytes + ' bytes vs limit ' + f.flashLimit).toBe(true);
  });

  it('would leave variables free even if its text were copied into RAM (worst case; the text stays in flash)', () => {
    const f = fit(art.bytes, { pageSize: board.chip.saved_code.page_size, pages: board.chip.saved_code.pages, variables: board.info.variables });
    expect(bytesPerVariable(board.info.variables)).toBe(14);
    expect(f.ramWorstCaseOk, f.textVariables + ' of ' + board.info.variables + ' variables').toBe(true);
  });

  it('is the file the build wrote (bytes and digest of what is flashed)', () => {
    const text = readFileSync(art.outFile);
    expect(text.length).toBe(art.bytes);
    expect(art.sha256).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('the same check refuses the rejected boards', () => {
  it.each(REJECTED)('$name ($source): the artifact does not fit its saved-code area', (b) => {
    const f = fit(art.bytes, b);
    expect(f.flashOk, art.bytes + ' bytes vs limit ' + f.flashLimit + ' of ' + f.codeArea).toBe(false);
    // not even without the margin: the whole code area is too small
    expect(art.bytes).toBeGreaterThan(f.codeArea);
    expect(f.ramWorstCaseOk).toBe(b.expectRamWorstCaseOk);
  });

  it('the Pico figures: 3 × 16 KB = 49,152 bytes, 5,100 variables of 13 bytes', () => {
    const f = fit(art.bytes, REJECTED[0]);
    expect(f.codeArea).toBe(49_152);
    expect(bytesPerVariable(5100)).toBe(13);
    expect(f.flashOk).toBe(false);
    expect(f.ramWorstCaseOk).toBe(false);
  });

  it('ESP32 (boards/ESP32_IDF4.py @ 0681322c, 64 × 4 KB) would fit in flash too; its variables are allocated at boot from free memory (JSVAR_MALLOC), up to 16383', () => {
    expect(fit(art.bytes, { pageSize: 4096, pages: 64, variables: 16383 }).flashOk).toBe(true);
  });
});
