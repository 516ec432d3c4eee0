import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildBinding, canonicalLine } from '../../../core/seals/binding.ts';
import { verifySealProof } from '../../../core/seals/seal-proof.ts';
import { attachmentManifest, sha256Hex } from '../../../plugins/approvals/stamp-binding.ts';
import { routingOf, type ResolvedLine } from '../../../plugins/approvals/line-resolver.ts';

const fixture = JSON.parse(readFileSync(new URL('./fixtures/worked-proof.json', import.meta.url), 'utf8'));
const page = readFileSync(new URL('../../../docs/api/approvals.md', import.meta.url), 'utf8');

describe('docs/api/approvals.md worked example', () => {
  const manifest = attachmentManifest([{ Name: 'budget.pdf', Sha256: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', Size: 3 }]);
  const binding = buildBinding({
    purpose: 'approval.stamp', subject: '7c9e6679-7425-40de-944b-e07fc1f90ae7|approve|reject',
    nonce: '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f',
    fields: [
      { key: 'org', value: 'acme' }, { key: 'instance', value: '7c9e6679-7425-40de-944b-e07fc1f90ae7' }, { key: 'number', value: 'acme-2026-000042' },
      { key: 'title', value: 'Q3 예산' }, { key: 'decision', value: 'approve' }, { key: 'requester', value: 'b1a5e7c0-3d2f-4e8a-9c61-2f0d4b7a8e90' },
      { key: 'body.sha256', value: sha256Hex('3분기 예산안을 승인해 주십시오.') }, { key: 'attachments.sha256', value: sha256Hex(manifest) },
      { key: 'grant', value: 'org.board.read' }, { key: 'grant', value: 'org.team.list' },
    ],
  });
  const line = canonicalLine(binding);

  it('rebuilds the documented manifest, hashes and canonical line with the plugin and kernel code', () => {
    expect(Buffer.byteLength(manifest)).toBe(108);
    expect(page).toContain(manifest);
    expect(sha256Hex(manifest)).toBe('424c3a759a4e164db2993f18057fe2378b887da52d58828be2a17c8df03c30a0');
    expect(Buffer.byteLength(line)).toBe(566);
    expect(line).toBe(fixture.proof.canonical);
    const digest = createHash('sha256').update(line, 'utf8').digest();
    expect(digest.toString('hex')).toBe('81d513d6ec13026b65e6a52bdad379c214f2df7b13429c9e9fc95fec38aaf29e');
    for (const text of [digest.toString('hex'), digest.toString('base64url'), fixture.proof.signature, fixture.jwk.x]) expect(page).toContain(text);
  });

  it('verifies the documented proof with the documented key, and fails on a changed byte', () => {
    const expectations = { origin: 'https://aerie.example', rpId: 'aerie.example', binding: line };
    expect(verifySealProof(fixture.proof, fixture.jwk, expectations)).toMatchObject({ ok: true, userVerified: true, signCount: 1 });
    expect(verifySealProof({ ...fixture.proof, canonical: line.replace('approve', 'approvf') }, fixture.jwk).ok).toBe(false);
  });
});

describe('rule 1: routing of a resolved line (docs/api/approvals.md "Rule 1")', () => {
  const line = (approverCount: number, usesDefaultLine: boolean): ResolvedLine => ({ approverCount, usesDefaultLine, steps: [], unresolved: [] });
  it.each([
    ['human', 'positions', 0, 'auto'], ['human', 'tree', 0, 'auto'], ['human', 'positions', 1, 'route'], ['human', 'tree', 1, 'route'],
    ['agent', 'positions', 0, 'unroutable'], ['agent', 'positions', 1, 'route'],
    ['agent', 'tree', 0, 'unroutable'], ['agent', 'tree', 1, 'unroutable'], ['agent', 'tree', 2, 'route'],
  ] as const)('%s requester, %s path, %i approvers → %s', (kind, path, count, expected) => {
    expect(routingOf('document', line(count, path === 'tree'), kind)).toBe(expected);
  });
  it('sends reports whoever asks', () => {
    expect(routingOf('report', line(0, false), 'agent')).toBe('sent');
  });
});
