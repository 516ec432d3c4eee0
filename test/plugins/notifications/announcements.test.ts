import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership } from '../apps/helpers.ts';
import { inbox, membershipId, sendAnnouncement, uploadAttachment } from './helpers.ts';
import { statementsDuring } from '../../helpers/statements.ts';

const SEND = '/api/v1/notifications/org/send';

describe('notifications: announcements (POST /api/v1/notifications/org/send)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let admin: string;
  let member: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  it('an Admin sends to every active member: one announcement id, category Org, audited in the org chain', async () => {
    const sent = await sendAnnouncement(aerie, acme, { title: 'Office move', link: '/news/1' }, admin);
    expect(sent).toEqual({ id: expect.any(String), orgId: acme.id, title: 'Office move', recipientCount: 3, attachments: [], createdAt: expect.any(String) });
    const rows = await aerie.sql('select account_id, category, org_id from notifications.notifications where announcement_id = ?', [sent.id]);
    expect(rows).toHaveLength(3);
    expect(new Set(rows.map((r) => `${r.category}/${r.org_id}`))).toEqual(new Set([`Org/${acme.id}`]));
    expect((await inbox(aerie, member))[0]).toMatchObject({ title: 'Office move', announcementId: sent.id, link: '/news/1' });
    const [event] = (await auditEvents(aerie, acme, 'org.notification.sent')).filter((e) => e.businessData.announcementId === sent.id);
    expect(event.businessData).toMatchObject({ recipientCount: 3, recipientSelection: 'all', title: 'Office move' });
    const [sender] = await aerie.sql("select id from accounts.accounts where email = 'admin@acme.test'");
    expect([event.actorType, event.actorId]).toEqual(['account', sender.id]);
    const [announcement] = await aerie.sql('select recipient_selection, recipient_count from notifications.announcements where id = ?', [sent.id]);
    expect(announcement).toEqual({ recipient_selection: 'all', recipient_count: 3 });
  });

  it('sends only to the listed memberships (recipientConnectedIds)', async () => {
    const sent = await sendAnnouncement(aerie, acme, { title: 'Members only', recipientConnectedIds: [await membershipId(aerie, acme, 'member@acme.test')] });
    expect(sent.recipientCount).toBe(1);
    expect((await inbox(aerie, member))[0].title).toBe('Members only');
    expect((await inbox(aerie, admin)).map((n) => n.title)).not.toContain('Members only');
  });

  it('leaves suspended members out', async () => {
    await addMembership(aerie, acme, 'away@acme.test', 'Member');
    await aerie.sql("update orgs.memberships set status = 'suspended' where id = ?", [await membershipId(aerie, acme, 'away@acme.test')]);
    const sent = await sendAnnouncement(aerie, acme, { title: 'While you were away' });
    expect(sent.recipientCount).toBe(3);
    expect(await aerie.sql('select 1 from notifications.notifications n join accounts.accounts a on a.id = n.account_id where n.announcement_id = ? and a.email = ?', [sent.id, 'away@acme.test'])).toEqual([]);
  });

  it('a Member cannot send (403); a non-member, or an Admin naming another organization, gets 404', async () => {
    const denied = await aerie.request('POST', SEND, { token: member, body: { orgSlug: 'acme', title: 't', body: 'b' } });
    expect([denied.status, denied.body.error]).toEqual([403, 'PERMISSION_DENIED']);
    const foreign = await aerie.request('POST', SEND, { token: admin, body: { orgSlug: 'globex', title: 't', body: 'b' } });
    expect([foreign.status, foreign.body.error]).toEqual([404, 'NOT_FOUND']);
    const unknown = await aerie.request('POST', SEND, { token: admin, body: { orgSlug: 'nope', title: 't', body: 'b' } });
    expect(unknown.status).toBe(404);
    expect(await aerie.sql('select 1 from notifications.notifications where org_id = ?', [globex.id])).toHaveLength(0);
  });

  it("another organization's membership or attachment is 404 and nothing is sent", async () => {
    const before = await aerie.sql('select count(*)::int as n from notifications.notifications');
    const globexOwner = await membershipId(aerie, globex, 'owner@globex.test');
    const res = await aerie.request('POST', SEND, { token: admin, body: { orgSlug: 'acme', title: 't', body: 'b', recipientConnectedIds: [globexOwner] } });
    expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
    const theirs = await uploadAttachment(aerie, globex.owner, 'globex', new Uint8Array([1, 2, 3]));
    expect(theirs.status).toBe(201);
    const attach = await aerie.request('POST', SEND, { token: admin, body: { orgSlug: 'acme', title: 't', body: 'b', attachmentIds: [theirs.body.id] } });
    expect([attach.status, attach.body.error]).toEqual([404, 'NOT_FOUND']);
    expect(await aerie.sql('select count(*)::int as n from notifications.notifications')).toEqual(before);
    expect((await aerie.sql('select announcement_id from notifications.attachments where id = ?', [theirs.body.id]))[0].announcement_id).toBeNull();
  });

  it('an attachment goes with one announcement: a second send with it is 409 ATTACHMENT_ALREADY_SENT', async () => {
    const up = await uploadAttachment(aerie, admin, 'acme', new Uint8Array([9]));
    const sent = await sendAnnouncement(aerie, acme, { attachmentIds: [up.body.id] }, admin);
    expect(sent.attachments).toEqual([up.body]);
    expect((await inbox(aerie, member))[0].attachments).toEqual([up.body]);
    const again = await aerie.request('POST', SEND, { token: admin, body: { orgSlug: 'acme', title: 't', body: 'b', attachmentIds: [up.body.id] } });
    expect([again.status, again.body.error, again.body.field]).toEqual([409, 'ATTACHMENT_ALREADY_SENT', 'attachmentIds']);
  });

  it('fans out to 2,000 members in the same number of statements as to 3', async () => {
    const big = await signInWithOrg(aerie, 'owner@big.test', 'big');
    const statements = (send: () => Promise<unknown>) => statementsDuring(aerie.kernel.db.knex, send);
    const small = await statements(() => sendAnnouncement(aerie, acme));
    await aerie.sql(`insert into accounts.accounts (id, email, display_name, created_at, updated_at)
      select gen_random_uuid(), 'bulk' || i || '@big.test', 'Bulk ' || i, now(), now() from generate_series(1, 1999) as i`);
    await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
      select gen_random_uuid(), ?, id, 'Member', 'active', now(), now() from accounts.accounts where email like 'bulk%@big.test'`, [big.id]);
    let sent: any;
    const large = await statements(async () => {
      sent = await sendAnnouncement(aerie, big);
    });
    expect(sent.recipientCount).toBe(2000);
    const [{ n }] = await aerie.sql('select count(distinct account_id)::int as n from notifications.notifications where announcement_id = ?', [sent.id]);
    expect(n).toBe(2000);
    // Background work (the audit sealer, webhook workers) shares the database: count the send's own statements.
    const own = (seen: string[]) => seen.filter((sql) => /\bnotifications"?\./.test(sql));
    expect(own(large)).toHaveLength(own(small).length);
    expect(own(large)).toHaveLength(3);
    expect(large.filter((sql) => /insert into notifications\.notifications/i.test(sql))).toHaveLength(1);
  });
});
