import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { p256 } from '@noble/curves/nist.js';
import { TestAerie } from '../../helpers/harness.ts';
import { addSealPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { registerBoxCommands } from '../../../appliance/simulator/commands.ts';
import { verifySealProof } from '../../../core/seals/seal-proof.ts';

const BOX = 'DEMO-0001';
const nonceHex = () => randomBytes(16).toString('hex');

describe('roost: owner-sealed re-arm tickets', () => {
  let aerie: TestAerie;
  let owner: string;
  let ownerId: string;
  let admin: string;
  let auth: SoftAuthenticator;
  let credentialId: string;
  const secret = p256.utils.randomSecretKey();

  beforeAll(async () => {
    aerie = await TestAerie.start({ env: { AERIE_ROOST_KEY: Buffer.from(secret).toString('base64url') } });
    owner = await aerie.signIn('owner@example.com');
    admin = await aerie.signIn('admin@example.com');
    expect((await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Acme', slug: 'acme' } })).status).toBe(201);
    ownerId = (await aerie.request('GET', '/api/v1/users/me', { token: owner })).body.account.id;
    // Seed an Admin membership directly: the members plugin owns invitations, not this test.
    await aerie.sql(
      `insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
       select gen_random_uuid(), o.id, a.id, 'Admin', 'active', now(), now() from orgs.organizations o, accounts.accounts a
       where o.slug = 'acme' and a.email = 'admin@example.com'`,
    );
    auth = authenticatorFor(aerie);
    credentialId = await addSealPasskey(aerie, owner, auth);
  });
  afterAll(() => aerie?.close());

  const ticketRequest = async (box: string, nonce: string, sealFor: { box: string; nonce: string } = { box, nonce }) => {
    const { assertion } = await signStepUp(aerie, owner, auth, { purpose: 'roost.rearm', subject: `acme|${sealFor.box}|${sealFor.nonce}` });
    return { assertion, res: await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: owner, body: { box, nonce, stepUpAssertion: assertion } }) };
  };

  it('issues a ticket that a second implementation (node:crypto) verifies against the published key', async () => {
    const nonce = nonceHex();
    const { res } = await ticketRequest(BOX, nonce);
    expect(res.status).toBe(200);
    const published = (await aerie.request('GET', '/api/roost/rearm-public-key')).body;
    expect(published).toMatchObject({ alg: 'ES256' });
    expect(res.body).toMatchObject({ box: BOX, nonce, keyFingerprint: published.fingerprint });
    const [payloadB64, sigB64] = res.body.ticket.split('.');
    expect(res.body.ticket).not.toMatch(/=/);
    const payloadBytes = Buffer.from(payloadB64, 'base64url');
    const ok = verify('sha256', payloadBytes, { key: createPublicKey(published.publicKeyPem), dsaEncoding: 'ieee-p1363' }, Buffer.from(sigB64, 'base64url'));
    expect(ok).toBe(true);
    const payload = JSON.parse(payloadBytes.toString('utf8'));
    expect(Object.keys(payload)).toEqual(['v', 'typ', 'box', 'nonce', 'org', 'by', 'iat', 'exp']);
    expect(payload).toMatchObject({ v: 1, typ: 'roost-rearm', box: BOX, nonce, org: 'acme', by: ownerId });
    expect(payload.exp - payload.iat).toBe(600);
    expect(res.body.expiresAt).toBe(new Date(payload.exp * 1000).toISOString());
  });

  it('re-arms the desk simulator pinned to the server key URL (end to end over HTTP)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'roost-e2e-'));
    const lines: string[] = [];
    const codes: number[] = [];
    const box = async (...args: string[]) => {
      const program = new Command('aerie').exitOverride().configureOutput({ writeOut: () => {}, writeErr: () => {} });
      registerBoxCommands(program, { print: (l) => void lines.push(l), setExitCode: (c) => void codes.push(c) });
      const from = lines.length;
      await program.parseAsync(['box', '--dir', dir, ...args], { from: 'user' });
      return lines.slice(from);
    };
    try {
      await box('init', '--id', 'DEMO-0042', '--demo', '--pin', `${aerie.url}/api/roost/rearm-public-key`);
      await box('tamper');
      const [nonceLine] = await box('nonce');
      const nonce = nonceLine.replace('NONCE ', '');
      const { res } = await ticketRequest('DEMO-0042', nonce);
      expect(res.status).toBe(200);
      const out = await box('rearm', res.body.ticket);
      expect(codes).toEqual([]);
      expect(out.join('\n')).toMatch(/ARMED/);
      expect((await box('status')).join('\n')).toMatch(/armed/);
      await box('tamper');
      expect((await box('rearm', res.body.ticket)).join('\n')).toMatch(/REFUSED/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records roost.rearm.ticket_issued with the seal proof and the human seal marker', async () => {
    const nonce = nonceHex();
    const { res } = await ticketRequest(BOX, nonce);
    expect(res.status).toBe(200);
    const rows = await aerie.sql(
      `select business_data, actor_type, actor_id from core.audit_outbox where event_type = 'roost.rearm.ticket_issued' and business_data->>'nonce' = ?
       union all select business_data, actor_type, actor_id from core.audit_events where event_type = 'roost.rearm.ticket_issued' and business_data->>'nonce' = ?`,
      [nonce, nonce],
    );
    expect(rows).toHaveLength(1);
    const data = rows[0].business_data;
    expect(rows[0]).toMatchObject({ actor_type: 'account', actor_id: ownerId });
    expect(data).toMatchObject({ box: BOX, nonce, keyFingerprint: res.body.keyFingerprint, expiresAt: res.body.expiresAt, _humanSeal: { credentialId, userId: ownerId } });
    // A third party holding only the credential's public key can check the seal.
    expect(verifySealProof(data.sealProof, auth.publicKeyJwk(credentialId)).ok).toBe(true);
    const flipped = { ...data.sealProof, canonical: data.sealProof.canonical.replace(BOX, 'DEMO-0002') };
    expect(verifySealProof(flipped, auth.publicKeyJwk(credentialId)).ok).toBe(false);
  });

  it.each([
    ['a seal for another box', BOX, { box: 'DEMO-0002' }],
    ['a seal for another nonce', BOX, { nonce: 'f'.repeat(32) }],
  ])('refuses %s with 401 STEPUP_FAILED', async (_label, box, other) => {
    const nonce = nonceHex();
    const { res } = await ticketRequest(box, nonce, { box, nonce, ...other });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('STEPUP_FAILED');
  });

  it('refuses a replayed assertion and a missing one', async () => {
    const nonce = nonceHex();
    const { assertion, res } = await ticketRequest(BOX, nonce);
    expect(res.status).toBe(200);
    const replay = await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: owner, body: { box: BOX, nonce, stepUpAssertion: assertion } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toBe('STEPUP_FAILED');
    const none = await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: owner, body: { box: BOX, nonce } });
    expect(none.status).toBe(401);
    expect(none.body.error).toBe('STEPUP_REQUIRED');
  });

  it.each([
    ['lowercase box', { box: 'demo-0001', nonce: 'a'.repeat(32) }, 'box'],
    ['box too short', { box: 'ABC', nonce: 'a'.repeat(32) }, 'box'],
    ['box too long', { box: 'A'.repeat(41), nonce: 'a'.repeat(32) }, 'box'],
    ['box with a space', { box: 'DEMO 0001', nonce: 'a'.repeat(32) }, 'box'],
    ['missing box', { nonce: 'a'.repeat(32) }, 'box'],
    ['uppercase nonce', { box: BOX, nonce: 'A'.repeat(32) }, 'nonce'],
    ['short nonce', { box: BOX, nonce: 'a'.repeat(31) }, 'nonce'],
    ['numeric nonce', { box: BOX, nonce: 12345 }, 'nonce'],
  ])('refuses %s with 400 INVALID_REARM_REQUEST before asking for a seal', async (_label, body, field) => {
    const res = await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: owner, body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'INVALID_REARM_REQUEST', field });
  });

  it('answers 403 OWNER_REQUIRED to an Admin and 404 to a non-member', async () => {
    const res = await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: admin, body: { box: BOX, nonce: nonceHex() } });
    expect(res.status).toBe(403);
    expect(res.body.error).toBe('OWNER_REQUIRED');
    const stranger = await aerie.signIn('stranger@example.com');
    expect((await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: stranger, body: { box: BOX, nonce: nonceHex() } })).status).toBe(404);
  });

  it('serves the spec sheet PDF to signed-in accounts only', async () => {
    const anonymous = await aerie.request('GET', '/api/roost/spec-sheet');
    expect(anonymous.status).toBe(401);
    const res = await fetch(`${aerie.url}/api/roost/spec-sheet`, { headers: { authorization: `Bearer ${admin}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename=/);
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  });
});

describe('roost without a re-arm key', () => {
  let aerie: TestAerie;
  beforeAll(async () => {
    aerie = await TestAerie.start();
  });
  afterAll(() => aerie?.close());

  it('answers 503 ROOST_REARM_DISABLED for tickets and the public key', async () => {
    const owner = await aerie.signIn('owner@example.com');
    await aerie.request('POST', '/api/org/create', { token: owner, body: { name: 'Acme', slug: 'acme' } });
    const res = await aerie.request('POST', '/api/org/acme/roost/rearm-ticket', { token: owner, body: { box: BOX, nonce: nonceHex() } });
    expect(res.status).toBe(503);
    expect(res.body.error).toBe('ROOST_REARM_DISABLED');
    expect((await aerie.request('GET', '/api/roost/rearm-public-key')).status).toBe(503);
  });
});
