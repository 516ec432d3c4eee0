/** `aerie box …` driven through commander, against a temp directory and a real HTTP key endpoint. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SIMULATOR_STORAGE_FILE } from '../../appliance/simulator/file-hardware.ts';
import { registerBoxCommands, type BoxCommandOptions } from '../../appliance/simulator/commands.ts';
import { rearmPublicKeyDocument } from '../../appliance/pin.ts';
import { issueTicket } from '../../appliance/ticket-issuer.ts';
import { makeKey, T0 } from './helpers.ts';

const key = makeKey();
let dir: string;
let lines: string[];
let exitCodes: number[];
let clock: number;
let server: Server;
let keyUrl: string;
let served: { alg: string; publicKeyPem: string; fingerprint: string };

async function aerie(args: string[], extra: BoxCommandOptions = {}): Promise<string[]> {
  const program = new Command('aerie').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
  registerBoxCommands(program, { print: (l) => void lines.push(l), setExitCode: (c) => void exitCodes.push(c), now: () => clock, ...extra });
  const from = lines.length;
  await program.parseAsync(['box', '--dir', dir, ...args], { from: 'user' });
  return lines.slice(from);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url !== '/api/roost/rearm-public-key') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  keyUrl = 'http://127.0.0.1:' + (server.address() as AddressInfo).port + '/api/roost/rearm-public-key';
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'roost-sim-'));
  lines = [];
  exitCodes = [];
  clock = T0;
  served = rearmPublicKeyDocument(key.publicKey);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('aerie box', () => {
  it('walks init (URL pin) → status → tamper → nonce → rearm, storing everything in one file', async () => {
    expect(await aerie(['init', '--id', 'DEMO-0001', '--demo', '--pin', keyUrl])).toEqual([
      'PROVISIONED DEMO-0001 demo key ' + key.pin.fingerprint,
      'pinned key from url, fingerprint ' + key.pin.fingerprint,
    ]);
    expect(await aerie(['status'])).toEqual(['BOX DEMO-0001 demo armed since ' + T0 + ' key ' + key.pin.fingerprint]);
    expect(await aerie(['tamper'])).toEqual(['TAMPER DEMO-0001 erased']);
    const [nonceLine] = await aerie(['nonce']);
    const nonce = nonceLine.replace('NONCE ', '');
    expect(nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(await aerie(['status'])).toEqual(['BOX DEMO-0001 demo erased since ' + T0 + ' key ' + key.pin.fingerprint, 'NONCE ' + nonce]);
    clock = T0 + 120;
    const { ticket } = issueTicket({ box: 'DEMO-0001', nonce, org: 'acme', by: 'owner-1', iat: T0 + 100 }, key.secretKey);
    expect(await aerie(['rearm', ticket])).toEqual(['ARMED DEMO-0001 by owner-1 for acme']);
    expect(exitCodes).toEqual([]);
    const file = JSON.parse(readFileSync(join(dir, SIMULATOR_STORAGE_FILE), 'utf8'));
    expect(JSON.parse(file['roost.box'])).toMatchObject({ state: 'armed', spent: [nonce], fingerprint: key.pin.fingerprint });
    // the same ticket again, after another tamper: a replay
    await aerie(['tamper']);
    await aerie(['nonce']);
    expect(await aerie(['rearm', ticket])).toEqual(['REFUSED NONCE_REPLAYED: nonce was already used']);
    expect(exitCodes).toEqual([1]);
  });

  it('pins from a PEM file and from PEM text; --fingerprint must match', async () => {
    const pemFile = join(dir, 'rearm.pem');
    writeFileSync(pemFile, key.pem);
    await aerie(['init', '--id', 'PROD-0001', '--pin', pemFile, '--fingerprint', key.pin.fingerprint.toUpperCase()]);
    expect(lines.at(-1)).toBe('pinned key from file, fingerprint ' + key.pin.fingerprint);
    expect(await aerie(['status'])).toEqual(['BOX PROD-0001 production armed since ' + T0 + ' key ' + key.pin.fingerprint]);
    rmSync(join(dir, SIMULATOR_STORAGE_FILE));
    const out = await aerie(['init', '--id', 'DEMO-0002', '--demo', '--pin', key.pem, '--fingerprint', 'ab'.repeat(32)]);
    expect(out[0]).toMatch(/^REFUSED INVALID_PIN: .*is not the expected one\)$/);
    expect(exitCodes).toEqual([1]);
  });

  it.each([
    ['a fingerprint that does not match the served key', () => void (served.fingerprint = makeKey().pin.fingerprint)],
    ['an alg other than ES256', () => void (served.alg = 'RS256')],
    ['a key that is not P-256', () => void (served.publicKeyPem = 'nope')],
  ])('refuses a URL pin with %s', async (_l, spoil) => {
    spoil();
    const out = await aerie(['init', '--id', 'DEMO-0001', '--demo', '--pin', keyUrl]);
    expect(out[0]).toMatch(/^REFUSED INVALID_PIN: /);
    expect(exitCodes).toEqual([1]);
    expect(await aerie(['status'])).toEqual(['REFUSED NOT_PROVISIONED: box is not provisioned']);
  });

  it('a production box stays erased', async () => {
    await aerie(['init', '--id', 'PROD-0001', '--pin', keyUrl]);
    await aerie(['tamper']);
    expect(await aerie(['nonce'])).toEqual(['REFUSED PRODUCTION_BOX: production box stays erased']);
    const { ticket } = issueTicket({ box: 'PROD-0001', nonce: 'c'.repeat(32), org: 'acme', by: 'o', iat: T0 }, key.secretKey);
    expect(await aerie(['rearm', ticket])).toEqual(['REFUSED PRODUCTION_BOX: production box stays erased']);
    expect(exitCodes).toEqual([1, 1]);
  });

  it('commands on an unprovisioned box refuse NOT_PROVISIONED; init twice refuses ALREADY_PROVISIONED', async () => {
    for (const cmd of [['status'], ['tamper'], ['nonce'], ['rearm', 'x.y']]) {
      expect(await aerie(cmd)).toEqual(['REFUSED NOT_PROVISIONED: box is not provisioned']);
    }
    await aerie(['init', '--id', 'DEMO-0001', '--demo', '--pin', key.pem]);
    expect(await aerie(['init', '--id', 'DEMO-0001', '--demo', '--pin', key.pem])).toEqual(['REFUSED ALREADY_PROVISIONED: box is already provisioned']);
    expect(exitCodes).toEqual([1, 1, 1, 1, 1]);
  });

  it('uses AERIE_BOX_DIR when --dir is not given, and requires --id and --pin', async () => {
    const program = new Command('aerie').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
    registerBoxCommands(program, { print: (l) => void lines.push(l), setExitCode: (c) => void exitCodes.push(c) });
    const saved = process.env.AERIE_BOX_DIR;
    process.env.AERIE_BOX_DIR = dir;
    try {
      await program.parseAsync(['box', 'init', '--id', 'DEMO-0001', '--demo', '--pin', key.pem], { from: 'user' });
    } finally {
      if (saved === undefined) delete process.env.AERIE_BOX_DIR;
      else process.env.AERIE_BOX_DIR = saved;
    }
    expect(JSON.parse(readFileSync(join(dir, SIMULATOR_STORAGE_FILE), 'utf8'))['roost.box']).toContain('DEMO-0001');
    await expect(program.parseAsync(['box', 'init', '--demo', '--pin', key.pem], { from: 'user' })).rejects.toThrow(/--id/);
  });
});
