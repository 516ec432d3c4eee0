import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { joinOrg } from '../../helpers/org-members.ts';
import { fileRows, keyedOrg, startWithOrg, type KeyedOrg } from './helpers.ts';
import { createGroup } from '../apps/helpers.ts';
import { filesExtensions, type MeetingDirectory } from '../../../plugins/files/api.ts';

/** The file box in the console: own files for members, everyone's with org.org_file.list. */
describe('files: the console routes', () => {
  let aerie: TestAerie;
  let acme: KeyedOrg;
  let globex: KeyedOrg;
  let member: { token: string; id: string };
  const upload = async (slug: string, token: string, text: string, name: string, contentType?: string) => {
    const form = new FormData();
    form.append('file', new Blob([text]), name);
    const res = await fetch(`${aerie.url}/api/org/${slug}/files`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, ...(contentType ? { 'content-type': contentType } : {}) }, body: contentType ? text : form,
    });
    return { status: res.status, body: await res.json() };
  };
  const list = (token: string, query = '') => aerie.request('GET', `/api/org/${acme.slug}/files${query}`, { token });

  beforeAll(async () => {
    ({ aerie, org: acme } = await startWithOrg({}));
    globex = await keyedOrg(aerie, 'globex');
    member = await joinOrg(aerie, acme.owner, acme.slug, 'member@acme.test');
  });
  afterAll(() => aerie?.close());

  it('uploads as the signed-in person: the row records them, the audit event names them', async () => {
    const res = await upload(acme.slug, acme.owner, 'owner text', 'owner.txt');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ fileName: 'owner.txt', scope: 'free', sizeBytes: 10 });
    const [row] = (await fileRows(aerie, acme.id)).filter((r) => r.id === res.body.id);
    const [event] = (await auditEvents(aerie, acme, 'org.file.uploaded')).filter((e) => e.businessData.fileId === res.body.id);
    expect(event).toMatchObject({ actorType: 'account', actorId: row.uploaded_by });
    const [ownerRow] = await aerie.sql('select account_id from orgs.memberships where org_id = ? and role = ?', [acme.id, 'Owner']);
    expect(row.uploaded_by).toBe(ownerRow.account_id);
    const bad = await upload(acme.slug, acme.owner, '{}', 'x', 'application/json');
    expect([bad.status, bad.body.error]).toEqual([400, 'multipart_form_required']);
  });

  it("lists a member's own files by default; view=all needs org.org_file.list (403 for a member, everything for the owner)", async () => {
    const mine = (await upload(acme.slug, member.token, 'member text', 'member.txt')).body;
    const own = await list(member.token);
    expect(own.status).toBe(200);
    expect(own.body.items.map((f: any) => f.id)).toEqual([mine.id]);
    const all = await list(member.token, '?view=all');
    expect([all.status, all.body.error, all.body.required]).toEqual([403, 'PERMISSION_DENIED', 'org.org_file.list']);
    const everyone = await list(acme.owner, '?view=all');
    expect(everyone.body.items.map((f: any) => f.fileName).sort()).toEqual(['member.txt', 'owner.txt']);
    expect((await list(acme.owner)).body.items.map((f: any) => f.fileName)).toEqual(['owner.txt']);
  });

  it("lets a member trash, restore and share their own files only; the owner reaches everyone's; other organizations get 404", async () => {
    const mine = (await upload(acme.slug, member.token, 'mine', 'mine.txt')).body;
    const owners = (await list(acme.owner)).body.items[0];
    for (const [method, path, body] of [['DELETE', `/files/${owners.id}`], ['POST', `/files/${owners.id}/restore`], ['PATCH', `/files/${owners.id}/share`, { mode: 'link_anyone' }]] as const) {
      const res = await aerie.request(method, `/api/org/${acme.slug}${path}`, { token: member.token, body });
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect((await fileRows(aerie, acme.id)).find((r) => r.id === owners.id)).toMatchObject({ deleted_at: null, share_mode: 'restricted' });

    const shared = await aerie.request('PATCH', `/api/org/${acme.slug}/files/${mine.id}/share`, { token: member.token, body: { mode: 'link_anyone' } });
    expect(shared.body).toMatchObject({ mode: 'link_anyone', shareToken: mine.shareToken });
    const trashed = await aerie.request('DELETE', `/api/org/${acme.slug}/files/${mine.id}`, { token: member.token });
    expect(trashed.body).toMatchObject({ trashed: true, retentionDays: 7 });
    expect((await list(member.token, '?trashed=true')).body.items.map((f: any) => f.id)).toEqual([mine.id]);
    expect((await aerie.request('POST', `/api/org/${acme.slug}/files/${mine.id}/restore`, { token: member.token })).body).toMatchObject({ id: mine.id, deletedAt: null });
    expect((await aerie.request('DELETE', `/api/org/${acme.slug}/files/${mine.id}`, { token: acme.owner })).status).toBe(200);

    expect((await aerie.request('GET', `/api/org/${acme.slug}/files`, { token: globex.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', `/api/org/${globex.slug}/files/${owners.id}`, { token: globex.owner })).status).toBe(404);
    expect((await upload(acme.slug, globex.owner, 'x', 'x.txt')).status).toBe(404);
  });
  describe('uploads for a meeting or an app group', () => {
    const uploadFor = async (query: string, token = acme.owner, name = 'for.txt') => {
      const form = new FormData();
      form.append('file', new Blob(['for something']), name);
      const res = await fetch(`${aerie.url}/api/org/${acme.slug}/files${query}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
      return { status: res.status, body: await res.json() };
    };
    const count = async () => (await fileRows(aerie, acme.id)).length;

    it('records the app group of the organization and lists by it; another organization\'s group is 400 APP_GROUP_NOT_FOUND and stores nothing', async () => {
      const group = await createGroup(aerie, acme, { name: 'Portal' });
      const res = await uploadFor(`?appGroupId=${group.id}`);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ scope: 'free', appGroupId: group.id });
      expect((await aerie.sql('select app_group_id from files.files where id = ?', [res.body.id]))[0].app_group_id).toBe(group.id);
      const listed = await list(acme.owner, `?view=all&appGroupId=${group.id}`);
      expect(listed.body.items.map((f: { id: string }) => f.id)).toEqual([res.body.id]);

      const theirs = await createGroup(aerie, globex, { name: 'Theirs' });
      const before = await count();
      const refused = await uploadFor(`?appGroupId=${theirs.id}`);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ error: 'APP_GROUP_NOT_FOUND', field: 'appGroupId' });
      expect(await count()).toBe(before);
      expect((await uploadFor('?appGroupId=not-a-uuid')).status).toBe(400);
    });

    it('answers 404 MEETING_NOT_FOUND while no plugin knows meetings, and files under scope meeting:{id} once one does', async () => {
      const meetingId = '6f1c3d2e-0000-4000-8000-00000000a001';
      const before = await count();
      const none = await uploadFor(`?meetingId=${meetingId}`);
      expect(none.status).toBe(404);
      expect(none.body).toMatchObject({ error: 'MEETING_NOT_FOUND', field: 'meetingId' });
      expect(await count()).toBe(before);

      // A meetings plugin contributes its directory (here: one meeting the owner may file to).
      const asked: Array<[string, string, string]> = [];
      const directory: MeetingDirectory = async (orgId, id, accountId) => { asked.push([orgId, id, accountId]); return id === meetingId; };
      aerie.kernel.container.resolve<MeetingDirectory[]>(filesExtensions.meetings.id).push(directory);
      const filed = await uploadFor(`?meetingId=${meetingId}`);
      expect(filed.status).toBe(201);
      expect(filed.body).toMatchObject({ scope: `meeting:${meetingId}`, appGroupId: null });
      const [{ uploaded_by: uploader }] = await aerie.sql('select uploaded_by from files.files where id = ?', [filed.body.id]);
      expect(asked).toEqual([[acme.id, meetingId, uploader]]);
      expect((await list(acme.owner, `?meetingId=${meetingId}`)).body.items.map((f: { id: string }) => f.id)).toEqual([filed.body.id]);
      expect((await uploadFor('?meetingId=6f1c3d2e-0000-4000-8000-00000000a002')).status).toBe(404);
    });
  });
});
