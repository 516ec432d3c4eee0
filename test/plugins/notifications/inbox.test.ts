import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { addMembership } from '../apps/helpers.ts';
import { inbox, sendAnnouncement } from './helpers.ts';

const BASE = '/api/v1/notifications';

describe('notifications: the inbox (/api/v1/notifications)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let ann: string;
  let bob: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    ann = await addMembership(aerie, acme, 'ann@acme.test', 'Member');
    bob = await addMembership(aerie, acme, 'bob@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  const unread = async (token: string) => (await aerie.request('GET', `${BASE}/unread-count`, { token })).body.count;

  it('lists the newest 20, counts unread, marks one and all read', async () => {
    for (let i = 0; i < 22; i++) await sendAnnouncement(aerie, acme, { title: `Notice ${i}` });
    const list = await inbox(aerie, ann);
    expect(list).toHaveLength(20);
    expect(list[0]).toMatchObject({ title: 'Notice 21', category: 'Org', orgId: acme.id, readAt: null, attachments: [], link: null });
    expect(list[19].title).toBe('Notice 2');
    expect(await unread(ann)).toBe(22);

    const read = await aerie.request('PATCH', `${BASE}/${list[0].id}/read`, { token: ann });
    expect(read.status).toBe(204);
    expect(await unread(ann)).toBe(21);
    expect((await inbox(aerie, ann))[0].readAt).toEqual(expect.any(String));

    const all = await aerie.request('PATCH', `${BASE}/read-all`, { token: ann });
    expect([all.status, all.body]).toEqual([200, { updated: 21 }]);
    expect(await unread(ann)).toBe(0);
    expect(await unread(bob)).toBe(22);
  });

  it('deletes softly, all or none: the rows stay, the inbox and the count drop them', async () => {
    const [first, second] = await inbox(aerie, bob);
    const before = await unread(bob);
    const res = await aerie.request('DELETE', BASE, { token: bob, body: { ids: [first.id, second.id] } });
    expect(res.status).toBe(204);
    const ids = (await inbox(aerie, bob)).map((n) => n.id);
    expect(ids).not.toContain(first.id);
    expect(await unread(bob)).toBe(before - 2);
    const rows = await aerie.sql('select deleted_at from notifications.notifications where id in (?, ?)', [first.id, second.id]);
    expect(rows.every((r) => r.deleted_at !== null)).toBe(true);
    // Deleting again changes nothing; a deleted one cannot be marked read.
    expect((await aerie.request('DELETE', BASE, { token: bob, body: { ids: [first.id] } })).status).toBe(204);
    expect((await aerie.request('PATCH', `${BASE}/${first.id}/read`, { token: bob })).status).toBe(404);
  });

  it("another account's notification is 404 to read and to delete, and stays as it was", async () => {
    const [bobs] = await inbox(aerie, bob);
    const [anns] = await inbox(aerie, ann);
    expect((await inbox(aerie, ann)).map((n) => n.id)).not.toContain(bobs.id);
    const read = await aerie.request('PATCH', `${BASE}/${bobs.id}/read`, { token: ann });
    expect([read.status, read.body.error]).toEqual([404, 'NOT_FOUND']);
    const del = await aerie.request('DELETE', BASE, { token: ann, body: { ids: [anns.id, bobs.id] } });
    expect([del.status, del.body.error]).toEqual([404, 'NOT_FOUND']);
    const rows = await aerie.sql('select id, read_at, deleted_at from notifications.notifications where id in (?, ?)', [bobs.id, anns.id]);
    expect(rows.every((r) => r.deleted_at === null)).toBe(true);
    expect(rows.find((r) => r.id === bobs.id).read_at).toBeNull();
    expect((await aerie.request('PATCH', `${BASE}/not-a-uuid/read`, { token: ann })).status).toBe(400);
  });

  it('refuses more than 100 ids and callers without a session', async () => {
    const ids = Array.from({ length: 101 }, () => crypto.randomUUID());
    const res = await aerie.request('DELETE', BASE, { token: ann, body: { ids } });
    expect([res.status, res.body.error, res.body.field]).toEqual([400, 'VALIDATION_FAILED', 'ids']);
    expect((await aerie.request('GET', BASE)).status).toBe(401);
  });
});
