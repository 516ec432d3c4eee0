import { describe, expect, it } from 'vitest';
import {
  assertBindingMatches, bindingChallenge, bindingChallengeBase64url, buildBinding, canonicalLine, MAX_SEAL_VALUE_BYTES,
  parseCanonicalLine, SealBindingError, type SealBinding,
} from '../../../core/seals/binding.ts';

const INSTANCE = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
const NONCE = '000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f';

/** A rejected approval stamp (docs/seals.md: no `grant` items on reject). */
const vector: SealBinding = {
  version: 'aerie-stepup-v1',
  nonce: NONCE,
  purpose: 'approval.stamp',
  subject: `${INSTANCE}|approve|reject`,
  fields: [
    { key: 'org', value: 'acme' },
    { key: 'instance', value: INSTANCE },
    { key: 'number', value: 'acme-2026-000042' },
    { key: 'title', value: '이사회 승인' },
    { key: 'decision', value: 'reject' },
    { key: 'requester', value: 'b1a5e7c0-3d2f-4e8a-9c61-2f0d4b7a8e90' },
    { key: 'body.sha256', value: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' }, // SHA-256("")
    { key: 'attachments.sha256', value: 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad' }, // SHA-256("abc")
    { key: 'input.reason', value: 'Zürich ✓' },
  ],
};

// Byte lengths by hand (UTF-8):
//   nonce      64 hex chars                                   = 64
//   purpose    "approval.stamp"                              = 14
//   subject    36-char UUID + "|approve|reject" (1+7+1+6)    = 51
//   org "acme" = 4; instance UUID = 36; number "acme-2026-000042" = 4+1+4+1+6 = 16
//   title      "이사회 승인": 이 사 회 승 인 are U+AC00..U+D7A3 → 3 bytes each (EA..ED xx xx),
//              5 × 3 + 1 space = 16 (yet only 6 UTF-16 code units)
//   decision "reject" = 6; requester UUID = 36; both hashes 64 hex = 64
//   input.reason "Zürich ✓": Z r i c h = 5, ü U+00FC = 2 (C3 BC), space = 1, ✓ U+2713 = 3 (E2 9C 93) = 11
// Whole line: 554 bytes. Its SHA-256 was computed outside this code base (Python hashlib).
const EXPECTED_LINE =
  'aerie-stepup-v1'
  + `|nonce=64:${NONCE}`
  + '|purpose=14:approval.stamp'
  + `|subject=51:${INSTANCE}|approve|reject`
  + '|org=4:acme'
  + `|instance=36:${INSTANCE}`
  + '|number=16:acme-2026-000042'
  + '|title=16:이사회 승인'
  + '|decision=6:reject'
  + '|requester=36:b1a5e7c0-3d2f-4e8a-9c61-2f0d4b7a8e90'
  + '|body.sha256=64:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
  + '|attachments.sha256=64:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'
  + '|input.reason=11:Zürich ✓';
const EXPECTED_SHA256_HEX = '522db25bd64563cc72497e8183253ff691414b30a918c9bf786dbd93c624fb2a';
const EXPECTED_CHALLENGE = 'Ui2yW9ZFY8xySX6BgyU_9pFBSzCpGMm_eG29k8Yk-yo';

describe('canonical line (docs/seals.md)', () => {
  it('matches the hand-computed vector with multi-byte UTF-8 values', () => {
    const line = canonicalLine(vector);
    expect(line).toBe(EXPECTED_LINE);
    expect(Buffer.byteLength(line, 'utf8')).toBe(554);
    expect(Buffer.from(bindingChallenge(vector)).toString('hex')).toBe(EXPECTED_SHA256_HEX);
    expect(bindingChallenge(vector)).toHaveLength(32);
    expect(bindingChallengeBase64url(vector)).toBe(EXPECTED_CHALLENGE);
    expect(bindingChallengeBase64url(EXPECTED_LINE)).toBe(EXPECTED_CHALLENGE);
  });

  it('keeps fields in the order given (never sorted by key)', () => {
    const reversed = { ...vector, fields: [...vector.fields].reverse() };
    expect(canonicalLine(reversed)).not.toBe(EXPECTED_LINE);
    expect(canonicalLine(reversed).endsWith('|org=4:acme')).toBe(true);
  });

  it('needs no escaping: separators inside values are covered by the byte length', () => {
    const tricky = buildBinding({ purpose: 'x.y', subject: 'a|b=c:d', nonce: NONCE, fields: [{ key: 'k', value: '|k=1:z\n' }] });
    const line = canonicalLine(tricky);
    expect(line).toBe(`aerie-stepup-v1|nonce=64:${NONCE}|purpose=3:x.y|subject=7:a|b=c:d|k=7:|k=1:z\n`);
    expect(parseCanonicalLine(line)).toEqual(tricky);
  });

  it('does not normalize Unicode: NFC and NFD spellings are different lines', () => {
    const nfc = buildBinding({ purpose: 'x', subject: 's', nonce: NONCE, fields: [{ key: 'v', value: 'ü' }] });
    const nfd = buildBinding({ purpose: 'x', subject: 's', nonce: NONCE, fields: [{ key: 'v', value: 'u\u0308' }] });
    expect(canonicalLine(nfc).endsWith('|v=2:ü')).toBe(true);
    expect(canonicalLine(nfd).endsWith('|v=3:u\u0308')).toBe(true);
  });

  it('parses back to the same binding', () => {
    expect(parseCanonicalLine(EXPECTED_LINE)).toEqual(vector);
  });

  it.each([
    ['wrong prefix', EXPECTED_LINE.replace('aerie-stepup-v1', 'svc-stepup-v1')],
    ['length too short', EXPECTED_LINE.replace('title=16:', 'title=15:')],
    ['length too long', EXPECTED_LINE.replace('input.reason=11:', 'input.reason=12:')],
    ['leading zero length', EXPECTED_LINE.replace('org=4:', 'org=04:')],
    ['missing subject', `aerie-stepup-v1|nonce=64:${NONCE}|purpose=1:x`],
    ['trailing separator', `${EXPECTED_LINE}|`],
  ])('rejects a malformed line: %s', (_name, line) => {
    expect(() => parseCanonicalLine(line)).toThrow(SealBindingError);
  });
});

describe('buildBinding', () => {
  it('draws a 64-hex nonce from the injected random source', () => {
    const binding = buildBinding({ purpose: 'roost.rearm', subject: 'acme|BOX-1|00ff' }, (n) => new Uint8Array(n).fill(0xab));
    expect(binding).toEqual({ version: 'aerie-stepup-v1', nonce: 'ab'.repeat(32), purpose: 'roost.rearm', subject: 'acme|BOX-1|00ff', fields: [] });
  });

  it('draws different nonces by default', () => {
    const a = buildBinding({ purpose: 'roost.rearm', subject: 's' });
    const b = buildBinding({ purpose: 'roost.rearm', subject: 's' });
    expect(a.nonce).toMatch(/^[0-9a-f]{64}$/);
    expect(a.nonce).not.toBe(b.nonce);
  });

  it.each([
    ['invalid_nonce', { nonce: 'AB'.repeat(32) }],
    ['invalid_nonce', { nonce: 'ab' }],
    ['invalid_purpose', { purpose: 'Approval.Stamp' }],
    ['invalid_purpose', { purpose: 'approval..stamp' }],
    ['invalid_subject', { subject: '' }],
    ['invalid_field_key', { fields: [{ key: 'a|b', value: '' }] }],
    ['invalid_field_key', { fields: [{ key: 'a=b', value: '' }] }],
    ['invalid_field_key', { fields: [{ key: '', value: '' }] }],
    ['reserved_field_key', { fields: [{ key: 'subject', value: 'x' }] }],
    ['invalid_value', { fields: [{ key: 'k', value: 'lone \uD800 surrogate' }] }],
    ['invalid_value', { fields: [{ key: 'k', value: 42 as unknown as string }] }],
    ['value_too_long', { fields: [{ key: 'k', value: '✓'.repeat(MAX_SEAL_VALUE_BYTES / 3 + 1) }] }],
  ])('refuses %s', (code, patch) => {
    const input = { purpose: 'approval.stamp', subject: 's', nonce: NONCE, fields: [], ...patch };
    const err = (() => { try { buildBinding(input); } catch (e) { return e; } })() as SealBindingError;
    expect(err).toBeInstanceOf(SealBindingError);
    expect(err.code).toBe(code);
    expect(err.status).toBe(400);
  });
});

describe('assertBindingMatches (docs/seals.md)', () => {
  it('accepts the same content, given as binding or canonical line', () => {
    expect(() => assertBindingMatches(vector, EXPECTED_LINE)).not.toThrow();
    expect(() => assertBindingMatches(vector, structuredClone(vector))).not.toThrow();
  });

  it.each([
    ['body.sha256', (b: SealBinding) => { b.fields[6].value = 'ff'.repeat(32); }],
    ['decision', (b: SealBinding) => { b.fields[4].value = 'approve'; }],
    ['input.reason', (b: SealBinding) => { b.fields[8].value = 'Zürich'; }],
    ['subject', (b: SealBinding) => { b.subject = 'other|approve|reject'; }],
    ['grant', (b: SealBinding) => { b.fields.splice(8, 0, { key: 'grant', value: 'org.role.assign' }); }],
  ])('reports a changed %s as 403 seal_binding_mismatch', (key, change) => {
    const rebuilt = structuredClone(vector);
    change(rebuilt);
    const err = (() => { try { assertBindingMatches(rebuilt, EXPECTED_LINE); } catch (e) { return e; } })() as SealBindingError;
    expect(err.code).toBe('seal_binding_mismatch');
    expect(err.status).toBe(403);
    expect(err.details.mismatchedKeys).toEqual([key]);
  });
});
