import { describe, expect, it } from 'vitest';
import { canonicalLine, SealBindingError, type SealField } from '../../../core/seals/binding.ts';
import { assertInputMatches, PurposeRegistry } from '../../../core/seals/purpose-registry.ts';
import { APPROVAL_STAMP_PURPOSE } from '../../../plugins/approvals/stamp-binding.ts';

const NONCE = 'cd'.repeat(32);

interface Instance { id: string; title: string; decision: 'approve' | 'reject'; grants: string[] }

/** An approvals-plugin-like builder that emits fields in a scrambled order to prove the registry orders them. */
function approvalRegistry(instance: Instance) {
  return new PurposeRegistry().register<{ orgSlug: string }>({
    ...APPROVAL_STAMP_PURPOSE,
    buildFields: ({ context }) => [
      ...instance.grants.map((value) => ({ key: 'grant', value })),
      { key: 'attachments.sha256', value: 'a'.repeat(64) },
      { key: 'body.sha256', value: 'b'.repeat(64) },
      { key: 'requester', value: 'req-1' },
      { key: 'decision', value: instance.decision },
      { key: 'title', value: instance.title },
      { key: 'number', value: `${context.orgSlug}-2026-000001` },
      { key: 'instance', value: instance.id },
      { key: 'org', value: context.orgSlug },
    ],
  });
}

describe('PurposeRegistry.normalizeInputs (docs/seals.md)', () => {
  const registry = new PurposeRegistry().register(APPROVAL_STAMP_PURPOSE).register({ purpose: 'roost.rearm', allowedInputs: [] });

  it.each<[string, string, SealField[] | undefined, SealField[]]>([
    ['trims allowed inputs', 'approval.stamp', [{ key: 'input.reason', value: '  예산 초과 \n' }], [{ key: 'input.reason', value: '예산 초과' }]],
    ['drops keys the purpose does not allow', 'approval.stamp', [{ key: 'input.note', value: 'x' }, { key: 'decision', value: 'approve' }], []],
    ['keeps an empty value after trimming', 'approval.stamp', [{ key: 'input.reason', value: ' \t ' }], [{ key: 'input.reason', value: '' }]],
    ['allows nothing for a purpose without inputs', 'roost.rearm', [{ key: 'input.reason', value: 'x' }], []],
    ['allows nothing for an unknown purpose', 'nope', [{ key: 'input.reason', value: 'x' }], []],
    ['accepts no inputs at all', 'approval.stamp', undefined, []],
  ])('%s', (_name, purpose, inputs, expected) => {
    expect(registry.normalizeInputs(purpose, inputs)).toEqual(expected);
  });

  it('refuses an allowed key sent twice', () => {
    expect(() => registry.normalizeInputs('approval.stamp', [{ key: 'input.reason', value: 'a' }, { key: 'input.reason', value: 'b' }]))
      .toThrow(expect.objectContaining({ code: 'duplicate_input' }));
  });
});

describe('PurposeRegistry.buildBinding (docs/seals.md)', () => {
  it('orders fields as the spec lists them, grants sorted ordinally, reason last', async () => {
    const registry = approvalRegistry({ id: 'inst-1', title: 'Q3 예산', decision: 'approve', grants: ['org.role.assign', 'org.file.list', 'org.Z'] });
    const binding = await registry.buildBinding({
      purpose: 'approval.stamp', subject: 'inst-1|approve|reject', nonce: NONCE,
      inputs: [{ key: 'input.reason', value: ' ok ' }, { key: 'input.other', value: 'dropped' }], context: { orgSlug: 'acme' },
    });
    expect(binding.fields.map((f) => `${f.key}=${f.value}`)).toEqual([
      'org=acme', 'instance=inst-1', 'number=acme-2026-000001', 'title=Q3 예산', 'decision=approve', 'requester=req-1',
      `body.sha256=${'b'.repeat(64)}`, `attachments.sha256=${'a'.repeat(64)}`,
      'grant=org.Z', 'grant=org.file.list', 'grant=org.role.assign', // ordinal: 'Z' (0x5A) < 'f' (0x66) < 'r'
      'input.reason=ok',
    ]);
    expect(canonicalLine(binding)).toContain('|title=9:Q3 예산|'); // 'Q3 ' = 3 bytes, 예 산 = 3 bytes each
  });

  it('has no grant items on reject and no input.reason when none was typed', async () => {
    const registry = approvalRegistry({ id: 'inst-2', title: 't', decision: 'reject', grants: [] });
    const binding = await registry.buildBinding({ purpose: 'approval.stamp', subject: 'inst-2|approve|reject', context: { orgSlug: 'acme' } });
    expect(binding.fields.map((f) => f.key)).toEqual(APPROVAL_STAMP_PURPOSE.fieldKeys.filter((k) => k !== 'grant' && k !== 'input.reason'));
    expect(binding.nonce).toMatch(/^[0-9a-f]{64}$/);
  });

  it('rebuilds the same line with the stored nonce', async () => {
    const registry = approvalRegistry({ id: 'i', title: 't', decision: 'approve', grants: ['b', 'a'] });
    const request = { purpose: 'approval.stamp', subject: 'i|approve|reject', nonce: NONCE, context: { orgSlug: 'acme' } };
    expect(canonicalLine(await registry.buildBinding(request))).toBe(canonicalLine(await registry.buildBinding(request)));
  });

  it.each<[string, SealField[]]>([
    ['a key the purpose does not sign', [{ key: 'org', value: 'a' }, { key: 'secret', value: 'x' }]],
    ['a non-repeatable key twice', [{ key: 'org', value: 'a' }, { key: 'org', value: 'b' }]],
    ['the same grant twice', [{ key: 'grant', value: 'a' }, { key: 'grant', value: 'a' }]],
  ])('refuses a builder that emits %s', async (_name, fields) => {
    const registry = new PurposeRegistry().register({ ...APPROVAL_STAMP_PURPOSE, buildFields: () => fields });
    await expect(registry.buildBinding({ purpose: 'approval.stamp', subject: 's' })).rejects.toMatchObject({ code: 'unexpected_field' });
  });

  it('without declared order keeps builder order, grouping repeats, then inputs', async () => {
    const registry = new PurposeRegistry().register({
      purpose: 'x.y', allowedInputs: ['input.a'], repeatableKeys: ['g'],
      buildFields: () => [{ key: 'm', value: '1' }, { key: 'g', value: 'b' }, { key: 'k', value: '2' }, { key: 'g', value: 'a' }],
    });
    const binding = await registry.buildBinding({ purpose: 'x.y', subject: 's', inputs: [{ key: 'input.a', value: 'v' }] });
    expect(binding.fields.map((f) => `${f.key}=${f.value}`)).toEqual(['m=1', 'g=a', 'g=b', 'k=2', 'input.a=v']);
  });

  it('refuses unknown purposes and bad registrations', async () => {
    const registry = new PurposeRegistry().register({ purpose: 'roost.rearm', allowedInputs: [] });
    await expect(registry.buildBinding({ purpose: 'nope', subject: 's' })).rejects.toMatchObject({ code: 'unknown_purpose' });
    expect(() => registry.register({ purpose: 'roost.rearm', allowedInputs: [] })).toThrow(expect.objectContaining({ code: 'duplicate_purpose' }));
    expect(() => registry.register({ purpose: 'Bad Name', allowedInputs: [] })).toThrow(expect.objectContaining({ code: 'invalid_purpose' }));
    expect(() => registry.register({ purpose: 'a.b', allowedInputs: ['input.x'], fieldKeys: ['org'] }))
      .toThrow(expect.objectContaining({ code: 'invalid_field_key' }));
    expect(registry.list()).toEqual(['roost.rearm']);
    const binding = await registry.buildBinding({ purpose: 'roost.rearm', subject: 'acme|BOX-1|' + 'a'.repeat(32) });
    expect(binding.fields).toEqual([]);
  });
});

describe('assertInputMatches (docs/seals.md)', () => {
  const signed = { version: 'aerie-stepup-v1' as const, nonce: NONCE, purpose: 'approval.stamp', subject: 's', fields: [{ key: 'input.reason', value: '예산 초과' }] };

  it.each([['예산 초과'], ['  예산 초과\n']])('accepts the same reason %j (trimmed alike)', (sent) => {
    expect(() => assertInputMatches(signed, 'input.reason', sent)).not.toThrow();
  });

  it.each([['예산초과'], [''], [undefined]])('refuses a different reason %j with 403 seal_binding_mismatch', (sent) => {
    const err = (() => { try { assertInputMatches(signed, 'input.reason', sent); } catch (e) { return e; } })() as SealBindingError;
    expect(err).toBeInstanceOf(SealBindingError);
    expect(err.status).toBe(403);
    expect(err.code).toBe('seal_binding_mismatch');
  });

  it('treats an absent bound input as the empty string', () => {
    const none = { ...signed, fields: [] };
    expect(() => assertInputMatches(none, 'input.reason', '  ')).not.toThrow();
    expect(() => assertInputMatches(none, 'input.reason', 'late reason')).toThrow(SealBindingError);
  });
});
