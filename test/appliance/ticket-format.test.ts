/**
 * The ticket format, checked by a second implementation (Node's crypto, IEEE P1363 signatures)
 * in both directions: noble-issued tickets verify with Node, Node-signed tickets verify on the box.
 */
import { createHash, verify as nodeVerify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueTicket, TicketClaimsError } from '../../appliance/ticket-issuer.ts';
import { ellipticP256 } from '../../appliance/p256-elliptic.ts';
import { nobleP256 } from '../../appliance/p256-noble.ts';
import { verifyTicket } from '../../appliance/ticket.ts';
import { makeKey, signWithNode, T0 } from './helpers.ts';

const key = makeKey();
const NONCE = '0123456789abcdef0123456789abcdef';
const claims = { box: 'DEMO-0001', nonce: NONCE, org: 'acme', by: '5b1d2f7e-1c1a-4c55-9d0e-2a0b9a1f0c11', iat: T0 };

describe('issueTicket', () => {
  it('writes base64url(payload).base64url(signature), no padding, payload keys in spec order', () => {
    const { ticket, expiresAt } = issueTicket(claims, key.secretKey);
    expect(ticket).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    const [p, s] = ticket.split('.');
    const payloadText = Buffer.from(p, 'base64url').toString('utf8');
    expect(payloadText).toBe(
      `{"v":1,"typ":"roost-rearm","box":"DEMO-0001","nonce":"${NONCE}","org":"acme","by":"${claims.by}","iat":${T0},"exp":${T0 + 600}}`,
    );
    expect(expiresAt).toBe(T0 + 600);
    expect(Buffer.from(s, 'base64url')).toHaveLength(64);
  });

  it('is verified independently by Node crypto (ieee-p1363) over the payload bytes', () => {
    for (let i = 0; i < 5; i++) {
      const { ticket } = issueTicket({ ...claims, iat: T0 + i }, key.secretKey);
      const [p, s] = ticket.split('.');
      const payloadBytes = Buffer.from(p, 'base64url');
      const sig = Buffer.from(s, 'base64url');
      expect(nodeVerify('sha256', payloadBytes, { key: key.nodePublic, dsaEncoding: 'ieee-p1363' }, sig)).toBe(true);
      // and not with another key
      expect(nodeVerify('sha256', payloadBytes, { key: makeKey().nodePublic, dsaEncoding: 'ieee-p1363' }, sig)).toBe(false);
    }
  });

  it('keeps non-ASCII org and user ids as UTF-8', () => {
    const { ticket } = issueTicket({ ...claims, org: 'café-ß', by: 'ユーザー' }, key.secretKey);
    const [p, s] = ticket.split('.');
    expect(JSON.parse(Buffer.from(p, 'base64url').toString('utf8')).org).toBe('café-ß');
    const ok = nodeVerify('sha256', Buffer.from(p, 'base64url'), { key: key.nodePublic, dsaEncoding: 'ieee-p1363' }, Buffer.from(s, 'base64url'));
    expect(ok).toBe(true);
    expect(verifyTicket(ticket, { publicKey: key.publicKey, boxId: 'DEMO-0001', now: T0, p256: nobleP256 })).toMatchObject({ ok: true, payload: { by: 'ユーザー' } });
  });

  it.each([
    ['box', { box: 'demo-0001' }],
    ['box', { box: 'AB1' }],
    ['box', { box: 'A'.repeat(41) }],
    ['nonce', { nonce: NONCE.toUpperCase() }],
    ['nonce', { nonce: NONCE.slice(1) }],
    ['org', { org: '' }],
    ['by', { by: '' }],
    ['iat', { iat: 1.5 }],
  ])('refuses a bad %s with INVALID_REARM_REQUEST', (field, change) => {
    const run = () => issueTicket({ ...claims, ...change }, key.secretKey);
    expect(run).toThrow(TicketClaimsError);
    try {
      run();
    } catch (e) {
      expect((e as TicketClaimsError).code).toBe('INVALID_REARM_REQUEST');
      expect((e as TicketClaimsError).field).toBe(field);
    }
  });

  it('refuses a key that is not a P-256 scalar', () => {
    expect(() => issueTicket(claims, new Uint8Array(32))).toThrow(TicketClaimsError);
  });
});

describe('verifyTicket against a second implementation', () => {
  it('accepts a ticket signed by Node crypto, including high-S signatures (noble and elliptic suites)', () => {
    const payload = JSON.stringify({ v: 1, typ: 'roost-rearm', box: 'DEMO-0001', nonce: NONCE, org: 'acme', by: 'u1', iat: T0, exp: T0 + 600 });
    const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
    let sawHighS = false;
    for (let i = 0; i < 24; i++) {
      const ticket = signWithNode(payload, key);
      const s = BigInt('0x' + Buffer.from(ticket.split('.')[1], 'base64url').subarray(32).toString('hex'));
      if (s > n / 2n) sawHighS = true;
      for (const p256 of [nobleP256, ellipticP256]) {
        expect(verifyTicket(ticket, { publicKey: key.publicKey, boxId: 'DEMO-0001', now: T0, p256 }).ok).toBe(true);
      }
    }
    expect(sawHighS).toBe(true);
  });

  it('takes the fingerprint as SHA-256 of the SPKI DER, lowercase hex, like Node does', () => {
    const der = key.nodePublic.export({ type: 'spki', format: 'der' });
    expect(key.pin.fingerprint).toBe(createHash('sha256').update(der).digest('hex'));
    expect(Buffer.from(key.pin.spki).equals(der)).toBe(true);
  });
});
