import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { createForm, orgWithPeople, position, setLine, signStamp, submit, withPasskey, type PeopleOrg } from './approval-helpers.ts';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

/** `POST /api/org/{slug}/files` as `token` (the console upload); answers the file. */
async function consoleUpload(aerie: TestAerie, slug: string, token: string, name: string, bytes: Buffer): Promise<{ id: string }> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)]), name);
  const res = await fetch(`${aerie.url}/api/org/${slug}/files`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  if (res.status !== 201) throw new Error(`upload: ${res.status} ${await res.text()}`);
  return (await res.json()) as { id: string };
}

describe('approvals: attachments taken from the file box (docs/api/approvals.md "Attachments")', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let annAuth: SoftAuthenticator;
  let form: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'acme', ['ann', 'bob']);
    annAuth = await withPasskey(aerie, acme.tokens.ann);
    form = await createForm(aerie, acme, { docType: 'document', title: 'With files' });
    await setLine(aerie, acme, form, [position('Lead', 'member', { resolveMemberConnectedId: acme.ids.bob })]);
  });
  afterAll(() => aerie?.close());

  const fileRow = async (id: string) => (await aerie.sql('select sealed, scope, deleted_at from files.files where id = ?', [id]))[0];
  const instances = async () => (await aerie.sql('select count(*)::int as n from approvals.instances'))[0].n as number;

  it('seals the requester\'s files as the document\'s attachments: the manifest is what the file box stored, the stamp signs it', async () => {
    const plan = Buffer.from('the plan, in full');
    const file = await consoleUpload(aerie, 'acme', acme.tokens.ann, 'plan.txt', plan);
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, {
      WorkItemId: form, Title: 'Budget', Body: 'Please approve.',
      Attachments: [{ FileId: file.id }, { Name: 'note.pdf', Sha256: 'a'.repeat(64), Size: 3 }],
    });
    expect(res.status).toBe(201);
    const manifest = [{ Name: 'plan.txt', Sha256: sha256(plan), Size: plan.length }, { Name: 'note.pdf', Sha256: 'a'.repeat(64), Size: 3 }];
    expect(res.body.Attachments).toEqual([{ ...manifest[0], FileId: file.id }, manifest[1]]);
    expect(await fileRow(file.id)).toMatchObject({ sealed: true, scope: 'free', deleted_at: null });
    expect((await auditEvents(aerie, acme, 'org.file.sealed')).map((e) => e.businessData)).toEqual([
      expect.objectContaining({ fileId: file.id, fileName: 'plan.txt', sha256: sha256(plan), approvalInstanceId: res.body.InstanceId }),
    ]);

    // The approver's stamp binds the manifest of names, hashes and sizes (the file id is not part of it).
    const bobAuth = await withPasskey(aerie, acme.tokens.bob);
    const { binding } = await signStamp(aerie, acme.tokens.bob, bobAuth, res.body.InstanceId);
    const field = binding.fields.find((f: { key: string }) => f.key === 'attachments.sha256');
    expect(field.value).toBe(sha256(JSON.stringify(manifest)));

    // Sealed: the file box refuses to trash it, in the console and on the public API alike.
    const trash = await aerie.request('DELETE', `/api/org/acme/files/${file.id}`, { token: acme.tokens.ann });
    expect([trash.status, trash.body.error]).toEqual([409, 'sealed_attachment']);
    expect(await fileRow(file.id)).toMatchObject({ sealed: true, deleted_at: null });
  });

  it.each([
    ['another member\'s file', async () => (await consoleUpload(aerie, 'acme', acme.tokens.bob, 'bob.txt', Buffer.from('bob'))).id],
    ['a trashed file', async () => {
      const { id } = await consoleUpload(aerie, 'acme', acme.tokens.ann, 'old.txt', Buffer.from('old'));
      expect((await aerie.request('DELETE', `/api/org/acme/files/${id}`, { token: acme.tokens.ann })).status).toBe(200);
      return id;
    }],
    ['an unknown file', async () => '00000000-0000-4000-8000-000000000000'],
  ])('refuses %s (404 ATTACHMENT_NOT_FOUND naming it) and changes nothing, the number included', async (_label, fileOf) => {
    const fileId = await fileOf();
    const good = await consoleUpload(aerie, 'acme', acme.tokens.ann, 'good.txt', Buffer.from('good'));
    const before = await instances();
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Bad', Body: '', Attachments: [{ FileId: good.id }, { FileId: fileId }] });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'ATTACHMENT_NOT_FOUND', field: 'Attachments', fileId });
    expect(await instances()).toBe(before);
    expect(await fileRow(good.id)).toMatchObject({ sealed: false, scope: 'free' });
    const numbers = await aerie.sql("select document_number from approvals.instances order by document_number");
    const next = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Next', Body: '' });
    expect(next.body.DocumentNumber).toBe(`acme-${new Date().getUTCFullYear()}-${String(numbers.length + 1).padStart(6, '0')}`);
  });

  it('refuses a mixed attachment entry (a manifest entry with a FileId) with 400 VALIDATION_FAILED', async () => {
    const res = await submit(aerie, 'acme', acme.tokens.ann, annAuth, { WorkItemId: form, Title: 'Mixed', Body: '', Attachments: [{ Name: 'x', Sha256: 'a'.repeat(64), Size: 1, FileId: '00000000-0000-4000-8000-000000000000' }] });
    expect([res.status, res.body.error]).toEqual([400, 'VALIDATION_FAILED']);
  });
});

describe('approvals without the files plugin', () => {
  let aerie: TestAerie;

  beforeAll(async () => {
    aerie = await TestAerie.start({ plugins: ['accounts', 'orgs', 'rbac', 'members', 'teams', 'approvals'] });
  });
  afterAll(() => aerie?.close());

  it('answers attachments given by FileId with 400 VALIDATION_FAILED (field Attachments) and submits manifests as before', async () => {
    const org = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'solo', ['ann']);
    const auth = await withPasskey(aerie, org.tokens.ann);
    const form = await createForm(aerie, org, { docType: 'document', title: 'No box' });
    await setLine(aerie, org, form, [position('Owner', 'member', { resolveMemberConnectedId: org.ownerId })]);
    const refused = await submit(aerie, 'solo', org.tokens.ann, auth, { WorkItemId: form, Title: 'x', Body: '', Attachments: [{ FileId: '00000000-0000-4000-8000-000000000000' }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'Attachments' });
    const manifest = [{ Name: 'a.pdf', Sha256: 'b'.repeat(64), Size: 10 }];
    const ok = await submit(aerie, 'solo', org.tokens.ann, auth, { WorkItemId: form, Title: 'x', Body: '', Attachments: manifest });
    expect([ok.status, ok.body.Attachments]).toEqual([201, manifest]);
  });
});
