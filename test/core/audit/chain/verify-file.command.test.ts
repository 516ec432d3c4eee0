import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Command, CommanderError } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCheckpoint } from '../../../../core/audit/chain/checkpoint.ts';
import { formatExportFile } from '../../../../core/audit/chain/export-file.ts';
import { registerAuditFileCommands } from '../../../../core/audit/chain/verify-file.command.ts';
import { ORG_A, makeRecords, sealRecords } from './fixtures.ts';
import { makeAuditKey } from './keys.ts';

let dir: string;
let server: Server;
let jwksUrl: string;
const files = { good: '', tampered: '', jwks: '', notJwks: '' };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aerie-audit-cli-'));
  const key = await makeAuditKey();
  const records = sealRecords(makeRecords(ORG_A, 8));
  const last = records[7];
  const text = formatExportFile(records, [await signCheckpoint({ ...last }, key.privateKey, key.kid)]);
  Object.assign(files, {
    good: join(dir, 'day.jsonl'), tampered: join(dir, 'tampered.jsonl'), jwks: join(dir, 'jwks.json'), notJwks: join(dir, 'not-jwks.json'),
  });
  await writeFile(files.good, text);
  await writeFile(files.tampered, text.replace('"ip":"10.0.0.4"', '"ip":"10.0.0.5"'));
  await writeFile(files.jwks, JSON.stringify(key.jwks));
  await writeFile(files.notJwks, '{"kty":"EC"}');
  server = createServer((req, res) => {
    res.writeHead(req.url === '/jwks.json' ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(key.jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/jwks.json`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** Run `aerie <args>` in-process with exitOverride; collect stdout/stderr and the CommanderError, if any. */
async function aerie(...args: string[]) {
  const io = { out: '', err: '' };
  const program = new Command('aerie')
    .exitOverride()
    .configureOutput({ writeOut: (s) => (io.out += s), writeErr: (s) => (io.err += s) });
  registerAuditFileCommands(program);
  const error = await program.parseAsync(args, { from: 'user' }).then(() => undefined, (e: unknown) => e as CommanderError);
  return { ...io, error };
}

describe('aerie audit verify-file', () => {
  it('prints OK and exits 0 for an intact export (JWKS from a file)', async () => {
    const { out, error } = await aerie('audit', 'verify-file', files.good, '--jwks', files.jwks);
    expect(error).toBeUndefined();
    expect(out).toMatch(/^OK .*day\.jsonl: 8 records, 1 checkpoints, 1 organization verified/);
    expect(out).toContain(`org ${ORG_A}: seq 1..8, signed checkpoints cover through seq 8`);
  });

  it('fetches the JWKS from an http URL', async () => {
    const { out, error } = await aerie('audit', 'verify-file', files.good, '--jwks', jwksUrl);
    expect(error).toBeUndefined();
    expect(out).toMatch(/^OK /);
  });

  it('prints the first broken record and exits 1 for a tampered export', async () => {
    const { out, err, error } = await aerie('audit', 'verify-file', files.tampered, '--jwks', files.jwks);
    expect(error).toBeInstanceOf(CommanderError);
    expect(error).toMatchObject({ exitCode: 1, code: 'aerie.audit.verify_failed' });
    expect(out).toMatch(/^FAILED /);
    expect(out).toContain('first failure: payload_hash_mismatch at line 5, seq 4, id 5f3c8a2e-rec-000004');
    const broken = JSON.parse(out.split('first broken record: ')[1]);
    expect(broken).toMatchObject({ seq: 4, businessData: { ip: '10.0.0.5' } });
    expect(err).toContain('failed verification (payload_hash_mismatch)');
  });

  it('--json prints the machine-readable report', async () => {
    const { out, error } = await aerie('audit', 'verify-file', files.tampered, '--jwks', files.jwks, '--json');
    expect(error?.exitCode).toBe(1);
    expect(JSON.parse(out)).toMatchObject({ ok: false, failure: { reason: 'payload_hash_mismatch', seq: 4 } });
  });

  it.each([
    ['a missing export file', () => [join(dir, 'missing.jsonl'), '--jwks', files.jwks], /ENOENT/],
    ['a file that is not a JWKS', () => [files.good, '--jwks', files.notJwks], /expected \{"keys": \[\.\.\.\]\}/],
    ['a JWKS URL answering 404', () => [files.good, '--jwks', jwksUrl.replace('jwks.json', 'nope')], /HTTP 404/],
  ])('exits 1 on %s', async (_, args, message) => {
    const { err, error } = await aerie('audit', 'verify-file', ...args());
    expect(error).toMatchObject({ exitCode: 1, code: 'aerie.audit.verify_input' });
    expect(err).toMatch(message);
  });

  it('requires --jwks', async () => {
    const { error } = await aerie('audit', 'verify-file', files.good);
    expect(error?.code).toBe('commander.missingMandatoryOptionValue');
  });

  it('joins an existing audit command instead of adding a second one', () => {
    const program = new Command('aerie');
    program.command('audit').command('tail');
    registerAuditFileCommands(program);
    expect(program.commands.map((c) => c.name())).toEqual(['audit']);
    expect(program.commands[0].commands.map((c) => c.name())).toEqual(['tail', 'verify-file']);
  });

  it('as a real process: exit code 0 for the intact file, 1 for the tampered one', async () => {
    const script = "import { Command } from 'commander'; import { registerAuditFileCommands } from './core/audit/chain/verify-file.command.ts';" +
      " const p = new Command('aerie'); registerAuditFileCommands(p); await p.parseAsync();";
    const run = (file: string) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, 'audit', 'verify-file', file, '--jwks', files.jwks], { cwd: process.cwd() })
        .then(({ stdout }) => ({ code: 0, stdout }), (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }));
    const [good, bad] = await Promise.all([run(files.good), run(files.tampered)]);
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/^OK /);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toContain('first broken record:');
  });
});
