import { Command } from 'commander';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bindingChallengeBase64url, buildBinding } from '../../../core/seals/binding.ts';
import { makeSealProof, type SealProof } from '../../../core/seals/seal-proof.ts';
import { registerSealCommands } from '../../../core/seals/verify-proof.command.ts';
import { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';

const RP_ID = 'aerie.test';
let dir: string;
let proof: SealProof;
let auth: SoftAuthenticator;
let credentialId: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'aerie-seal-'));
  auth = new SoftAuthenticator({ origin: 'https://aerie.test', rpId: RP_ID });
  credentialId = auth.createCredential({
    rp: { id: RP_ID, name: 'Aerie' }, user: { id: 'dXNlcg', name: 'u', displayName: 'u' }, challenge: 'AAAA', pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  }).id;
  const binding = buildBinding({ purpose: 'roost.rearm', subject: `acme|BOX-7|${'0a'.repeat(16)}`, fields: [{ key: 'title', value: 'Zürich ✓' }] });
  proof = makeSealProof(binding, auth.getAssertion({ challenge: bindingChallengeBase64url(binding), rpId: RP_ID }));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => { process.exitCode = undefined; });

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

async function run(...args: string[]) {
  let out = '';
  let err = '';
  const program = new Command('aerie').exitOverride().configureOutput({ writeErr: (t) => { err += t; } });
  registerSealCommands(program, { out: (t) => { out += t; }, err: (t) => { err += t; } });
  await program.parseAsync(['seal', 'verify', ...args], { from: 'user' });
  return { out, err, exitCode: process.exitCode };
}

describe('aerie seal verify', () => {
  it.each([
    ['a JWK file', () => file('key.jwk.json', JSON.stringify(auth.publicKeyJwk(credentialId)))],
    ['a PEM file', () => file('key.pem', auth.publicKeyPem(credentialId))],
    ['a raw COSE file', () => file('key.cose', auth.publicKeyCose(credentialId))],
    ['a base64url COSE file', () => file('key.cose.txt', `${Buffer.from(auth.publicKeyCose(credentialId)).toString('base64url')}\n`)],
  ])('accepts a valid proof with %s', async (_name, keyFile) => {
    const { out, exitCode } = await run(file('proof.json', JSON.stringify(proof)), '--public-key', keyFile(), '--rp-id', RP_ID);
    expect(exitCode ?? 0).toBe(0);
    expect(out).toMatch(/purpose +roost.rearm/);
    expect(out).toMatch(/title +"Zürich ✓"/);
    expect(out).toMatch(/ok {4}SHA-256\(canonical\) equals the clientDataJSON challenge/);
    expect(out).toMatch(/ok {4}RP ID hash as expected/);
    expect(out.trimEnd().endsWith('VALID')).toBe(true);
  });

  it('reads the proof from an audit record field "sp" and prints JSON on request', async () => {
    const record = file('event.json', JSON.stringify({ eventType: 'RPT032', sp: proof }));
    const { out, exitCode } = await run(record, '--public-key', file('k.json', JSON.stringify(auth.publicKeyJwk(credentialId))), '--json');
    expect(exitCode ?? 0).toBe(0);
    expect(JSON.parse(out)).toMatchObject({ credentialId, ok: true, checks: { signatureValid: true } });
  });

  it('fails with exit code 1 when one byte of canonical is flipped', async () => {
    const tampered = { ...proof, canonical: proof.canonical.replace('BOX-7', 'BOX-8') };
    const { out, exitCode } = await run(file('bad.json', JSON.stringify(tampered)), '--public-key', file('k2.pem', auth.publicKeyPem(credentialId)));
    expect(exitCode).toBe(1);
    expect(out).toMatch(/FAIL {2}SHA-256\(canonical\)/);
    expect(out).toMatch(/INVALID: SHA-256\(canonical\) does not equal the challenge/);
  });

  it('fails with exit code 1 for another origin than expected', async () => {
    const { out, exitCode } = await run(file('p.json', JSON.stringify(proof)), '--public-key', file('k3.pem', auth.publicKeyPem(credentialId)), '--origin', 'https://evil.test');
    expect(exitCode).toBe(1);
    expect(out).toMatch(/INVALID: clientDataJSON.origin/);
  });

  it.each([
    ['a missing proof file', () => [join(dir, 'missing.json'), '--public-key', file('k4.pem', auth.publicKeyPem(credentialId))], /ENOENT/],
    ['a file without a proof', () => [file('empty.json', '{}'), '--public-key', file('k5.pem', auth.publicKeyPem(credentialId))], /no SealProof found/],
    ['a missing key file', () => [file('p2.json', JSON.stringify(proof)), '--public-key', join(dir, 'nokey.pem')], /ENOENT/],
  ])('reports %s on stderr with exit code 1', async (_name, args, message) => {
    const { err, exitCode } = await run(...args());
    expect(exitCode).toBe(1);
    expect(err).toMatch(message);
  });

  it('requires --public-key', async () => {
    await expect(run(file('p3.json', JSON.stringify(proof)))).rejects.toThrow(/--public-key/);
  });
});
