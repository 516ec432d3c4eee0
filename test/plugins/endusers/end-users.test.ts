import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createKey, tokenFor } from '../../helpers/api-keys.ts';
import { mailsTo } from '../../helpers/mail.ts';
import type { EndUserInvites } from '../../../plugins/endusers/invites.service.ts';
import { BASE, addMembership, createEndUser, endUserRow, groupOf, inviteToken, startWorld } from './helpers.ts';

describe('endusers: /api/org/{slug}/endusers', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let shop: string;
  let blog: string;
  let globexGroup: string;

  beforeAll(async () => {
    ({ aerie, acme, globex, shop, blog, globexGroup } = await startWorld());
  });
  afterAll(() => aerie?.close());

  it('creates a Pending end user with access, audits it, and mails an invite that verifies once', async () => {
    const created = await createEndUser(aerie, acme, { email: 'Ann@Example.test', displayName: 'Ann Lee', appGroupId: shop });
    expect(created).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/), badge: expect.stringMatching(/^eu_[A-Za-z0-9_-]{22}$/), email: 'Ann@Example.test', displayName: 'Ann Lee',
      status: 'Pending', emailVerifiedAt: null, source: 'dashboard', appGroupIds: [shop], createdAt: expect.any(String), updatedAt: expect.any(String),
    });
    const row = await endUserRow(aerie, acme, 'ann@example.test');
    expect(row).toMatchObject({ id: created.id, org_id: acme.id, email: 'Ann@Example.test', status: 'Pending', password_hash: null });
    expect(await aerie.sql('select app_group_id, org_id from endusers.access where end_user_id = ?', [created.id])).toEqual([{ app_group_id: shop, org_id: acme.id }]);
    const [event] = await auditEvents(aerie, acme, 'org.end_user.created');
    expect(event).toMatchObject({ actorType: 'account', businessData: { endUserId: created.id, badge: created.badge, email: 'Ann@Example.test', appGroupId: shop, source: 'dashboard', via: 'admin' } });

    const token = await inviteToken(aerie, 'Ann@Example.test');
    const [invite] = await aerie.sql('select token_hash, sent_at, used_at from endusers.invites where end_user_id = ?', [created.id]);
    expect(invite.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(invite.token_hash).not.toBe(token);
    expect(invite.sent_at).not.toBeNull();

    const verified = await aerie.request('POST', '/api/enduser/verify-invite', { body: { token } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body).toEqual({ endUserId: created.id, orgSlug: 'acme', appGroupId: shop, email: 'Ann@Example.test' });
    expect(await endUserRow(aerie, acme, 'ann@example.test')).toMatchObject({ status: 'Active', email_verified_at: expect.any(Date) });
    expect((await auditEvents(aerie, acme, 'org.end_user.verified'))[0]).toMatchObject({ actorType: 'system', businessData: { endUserId: created.id, previousStatus: 'Pending' } });

    const again = await aerie.request('POST', '/api/enduser/verify-invite', { body: { token } });
    expect(again).toMatchObject({ status: 410, body: { error: 'INVITE_USED' } });
  });

  it('runs the invite job idempotently: a second run of the same job mails nobody again', async () => {
    const u = await createEndUser(aerie, acme, { email: 'once@example.test', appGroupId: shop });
    await inviteToken(aerie, 'once@example.test');
    await expect.poll(async () => (await aerie.sql('select sent_at from endusers.invites where end_user_id = ?', [u.id]))[0]?.sent_at).not.toBeNull();
    const [{ job_id: jobId }] = await aerie.sql('select job_id from endusers.invites where end_user_id = ?', [u.id]);
    const invites = aerie.kernel.container.resolve<EndUserInvites>('endusers.invites');
    await invites.send(jobId, { orgId: acme.id, appGroupId: shop, endUserIds: [u.id] });
    expect(mailsTo(aerie.dataDir, 'once@example.test')).toHaveLength(1);
    expect(await aerie.sql('select count(*)::int as n from endusers.invites where end_user_id = ?', [u.id])).toEqual([{ n: 1 }]);
  });

  it('serves the invite page the mail links to, which spends nothing by itself', async () => {
    const u = await createEndUser(aerie, acme, { email: 'page@example.test', appGroupId: shop });
    const token = await inviteToken(aerie, 'page@example.test');
    const mail = mailsTo(aerie.dataDir, 'page@example.test')[0];
    expect(mail.replace(/=\r?\n/g, '')).toMatch(/\/enduser\/invite\?token(=3D|=)/);
    const page = await aerie.request('GET', `/enduser/invite?token=${encodeURIComponent(token)}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.body).toContain('/enduser/invite/assets/invite.js');
    const script = await aerie.request('GET', '/enduser/invite/assets/invite.js');
    expect(script.status).toBe(200);
    expect(script.body).toContain('/api/enduser/verify-invite');
    expect((await endUserRow(aerie, acme, 'page@example.test')).status).toBe('Pending');
    expect(u.status).toBe('Pending');
  });

  it('refuses unknown and expired invite tokens', async () => {
    expect(await aerie.request('POST', '/api/enduser/verify-invite', { body: { token: 'nope' } })).toMatchObject({ status: 400, body: { error: 'INVITE_INVALID' } });
    const u = await createEndUser(aerie, acme, { email: 'late@example.test', appGroupId: shop });
    const token = await inviteToken(aerie, 'late@example.test');
    await aerie.sql("update endusers.invites set expires_at = now() - interval '1 second' where end_user_id = ?", [u.id]);
    expect(await aerie.request('POST', '/api/enduser/verify-invite', { body: { token } })).toMatchObject({ status: 410, body: { error: 'INVITE_EXPIRED' } });
    expect((await endUserRow(aerie, acme, 'late@example.test')).status).toBe('Pending');
    expect((await aerie.request('POST', '/api/enduser/verify-invite', { body: { token, extra: 1 } })).status).toBe(400);
  });

  it('refuses a second end user with the same address in any case or Unicode form (409), other organizations may have it', async () => {
    await createEndUser(aerie, acme, { email: 'J\u00c9R\u00d4ME@example.test', appGroupId: shop });
    const dup = await aerie.request('POST', BASE('acme'), { token: acme.owner, body: { email: 'je\u0301ro\u0302me@EXAMPLE.test', appGroupId: blog } });
    expect(dup).toMatchObject({ status: 409, body: { error: 'END_USER_EXISTS', endUserId: expect.any(String) } });
    const [row] = await aerie.sql("select count(*)::int as n from endusers.access where end_user_id = ?", [dup.body.endUserId]);
    expect(row.n).toBe(1);
    await createEndUser(aerie, globex, { email: 'jérôme@example.test', appGroupId: globexGroup });
  });

  it('validates the body: types, unknown fields, lengths, addresses, and the app group of this organization', async () => {
    const post = (body: unknown) => aerie.request('POST', BASE('acme'), { token: acme.owner, body });
    expect(await post({ email: 42, appGroupId: shop })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'email' } });
    expect(await post({ email: 'a@b.test', appGroupId: shop, role: 'Admin' })).toMatchObject({ status: 400, body: { field: 'role' } });
    expect(await post({ email: `${'a'.repeat(250)}@b.test`, appGroupId: shop })).toMatchObject({ status: 400, body: { field: 'email' } });
    expect(await post({ email: 'not an address', appGroupId: shop })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'email' } });
    expect(await post({ email: 'x@b.test', displayName: 'x'.repeat(201), appGroupId: shop })).toMatchObject({ status: 400, body: { field: 'displayName' } });
    expect(await post({ email: 'x@b.test', displayName: 'Evil\u202Eeman', appGroupId: shop })).toMatchObject({ status: 400, body: { field: 'displayName' } });
    expect(await post({ email: 'x@b.test', appGroupId: 'not-a-uuid' })).toMatchObject({ status: 400, body: { field: 'appGroupId' } });
    expect(await post({ email: 'x@b.test', appGroupId: globexGroup })).toMatchObject({ status: 400, body: { error: 'VALIDATION_FAILED', field: 'appGroupId' } });
    expect(await endUserRow(aerie, acme, 'x@b.test')).toBeUndefined();
  });

  it('lists a page with total, newest first, filtered by search, status and app group', async () => {
    await createEndUser(aerie, acme, { email: 'search.one@list.test', displayName: 'Zoë Quill', appGroupId: blog });
    await createEndUser(aerie, acme, { email: 'search.two@list.test', appGroupId: blog });
    const get = (q: string) => aerie.request('GET', `${BASE('acme')}?${q}`, { token: acme.owner });
    const all = await get('pageSize=2');
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ page: 1, pageSize: 2, total: 7 });
    expect(all.body.endUsers.map((u: any) => u.email)).toEqual(['search.two@list.test', 'search.one@list.test']);
    expect((await get('pageSize=2&page=4')).body.endUsers.map((u: any) => u.email)).toEqual(['Ann@Example.test']);
    expect((await get('search=SEARCH.')).body.total).toBe(2);
    expect((await get(`search=${encodeURIComponent('zoë q')}`)).body.endUsers.map((u: any) => u.email)).toEqual(['search.one@list.test']);
    expect((await get(`search=${encodeURIComponent('jérôme')}`)).body.total).toBe(1);
    expect((await get('search=%25')).body.total).toBe(0);
    expect((await get('status=Active')).body.endUsers.map((u: any) => u.email)).toEqual(['Ann@Example.test']);
    expect((await get(`appGroupId=${blog}`)).body.total).toBe(2);
    expect((await get(`appGroupId=${globexGroup}`)).body).toMatchObject({ total: 0, endUsers: [] });
    for (const bad of ['pageSize=101', 'pageSize=0', 'page=0', 'status=Gone', 'appGroupId=x', 'search=', 'sort=email']) {
      expect((await get(bad)).status, bad).toBe(400);
    }
    expect((await aerie.request('GET', BASE('acme'), { token: globex.owner })).status).toBe(404);
    const globexList = await aerie.request('GET', BASE('globex'), { token: globex.owner });
    expect(globexList.body.endUsers.map((u: any) => u.email)).toEqual(['jérôme@example.test']);
  });

  it('suspends and activates along the state table, refusing other moves with 409', async () => {
    const u = await createEndUser(aerie, acme, { email: 'state@example.test', appGroupId: shop });
    const token = await inviteToken(aerie, 'state@example.test');
    const patch = (action: string, id = u.id, slug = 'acme', token = acme.owner) => aerie.request('PATCH', `${BASE(slug)}/${id}/${action}`, { token });
    expect(await patch('activate')).toMatchObject({ status: 409, body: { error: 'END_USER_STATUS_CONFLICT', status: 'Pending' } });
    expect(await patch('suspend')).toMatchObject({ status: 200, body: { status: 'Suspended' } });
    expect(await patch('suspend')).toMatchObject({ status: 409, body: { error: 'END_USER_STATUS_CONFLICT', status: 'Suspended' } });
    expect(await aerie.request('POST', '/api/enduser/verify-invite', { body: { token } })).toMatchObject({ status: 409, body: { error: 'END_USER_STATUS_CONFLICT' } });
    expect(await patch('activate')).toMatchObject({ status: 200, body: { status: 'Pending' } });
    expect((await aerie.request('POST', '/api/enduser/verify-invite', { body: { token } })).status).toBe(200);
    expect(await patch('suspend')).toMatchObject({ status: 200, body: { status: 'Suspended' } });
    expect(await patch('activate')).toMatchObject({ status: 200, body: { status: 'Active' } });
    expect((await auditEvents(aerie, acme, 'org.end_user.suspended', 'org.end_user.activated')).map((e) => [e.eventType, e.businessData.status])).toEqual([
      ['org.end_user.suspended', 'Suspended'], ['org.end_user.activated', 'Pending'], ['org.end_user.suspended', 'Suspended'], ['org.end_user.activated', 'Active'],
    ]);
    expect((await patch('suspend', u.id, 'globex', globex.owner)).status).toBe(404);
    expect((await patch('suspend', 'not-a-uuid')).status).toBe(400);
  });

  it('re-sends only a Pending end user\'s invite, at most once a minute; the new token replaces the old', async () => {
    const u = await createEndUser(aerie, acme, { email: 'resend@example.test', appGroupId: shop });
    const first = await inviteToken(aerie, 'resend@example.test');
    const resend = () => aerie.request('POST', `${BASE('acme')}/${u.id}/resend-invite`, { token: acme.owner });
    expect(await resend()).toMatchObject({ status: 200, body: { id: u.id, status: 'Pending' } });
    const limited = await resend();
    expect(limited).toMatchObject({ status: 429, body: { error: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) } });
    const second = await inviteToken(aerie, 'resend@example.test', 2);
    expect(second).not.toBe(first);
    expect(await aerie.request('POST', '/api/enduser/verify-invite', { body: { token: first } })).toMatchObject({ status: 400, body: { error: 'INVITE_INVALID' } });
    expect((await aerie.request('POST', '/api/enduser/verify-invite', { body: { token: second } })).status).toBe(200);
    const active = await aerie.request('POST', `${BASE('acme')}/${u.id}/resend-invite`, { token: acme.owner });
    expect(active).toMatchObject({ status: 409, body: { error: 'END_USER_STATUS_CONFLICT', status: 'Active' } });
    expect((await auditEvents(aerie, acme, 'org.end_user.invite_resent')).map((e) => e.businessData.endUserId)).toEqual([u.id]);
  });

  it('removes access to one group (404 without it) and deletes an end user for good', async () => {
    const u = await createEndUser(aerie, acme, { email: 'gone@example.test', appGroupId: shop });
    await aerie.request('POST', `${BASE('acme')}/bulk-import`, { token: acme.owner, body: { appGroupId: blog, users: [{ email: 'gone@example.test' }] } });
    const path = `${BASE('acme')}/${u.id}`;
    expect((await aerie.request('DELETE', `${path}/groups/${globexGroup}`, { token: acme.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', `${BASE('globex')}/${u.id}/groups/${shop}`, { token: globex.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', `${path}/groups/${shop}`, { token: acme.owner })).status).toBe(204);
    expect(await aerie.sql('select app_group_id from endusers.access where end_user_id = ?', [u.id])).toEqual([{ app_group_id: blog }]);
    expect((await auditEvents(aerie, acme, 'org.end_user.access_removed'))[0].businessData).toEqual({ endUserId: u.id, appGroupId: shop });

    expect((await aerie.request('DELETE', `${BASE('globex')}/${u.id}`, { token: globex.owner })).status).toBe(404);
    expect((await aerie.request('DELETE', path, { token: acme.owner })).status).toBe(204);
    expect(await endUserRow(aerie, acme, 'gone@example.test')).toBeUndefined();
    expect(await aerie.sql('select * from endusers.invites where end_user_id = ?', [u.id])).toEqual([]);
    expect(await aerie.sql('select * from endusers.access where end_user_id = ?', [u.id])).toEqual([]);
    expect((await aerie.request('DELETE', path, { token: acme.owner })).status).toBe(404);
    expect((await auditEvents(aerie, acme, 'org.end_user.deleted'))[0].businessData).toMatchObject({ endUserId: u.id, email: 'gone@example.test', appGroupIds: [blog] });
  });

  it('drops the access rows of a deleted app group', async () => {
    const temp = await groupOf(aerie, acme, 'Temp');
    const u = await createEndUser(aerie, acme, { email: 'temp@example.test', appGroupId: temp });
    expect((await aerie.request('DELETE', `/api/org/acme/app-groups/${temp}`, { token: acme.owner })).status).toBe(204);
    await expect.poll(async () => (await aerie.request('GET', `${BASE('acme')}?search=temp%40`, { token: acme.owner })).body.endUsers[0].appGroupIds).toEqual([]);
    const [event] = await auditEvents(aerie, acme, 'org.end_user.access_removed').then((es) => es.filter((e) => e.businessData.appGroupId === temp));
    expect(event).toMatchObject({ actorType: 'system', businessData: { endUserId: u.id, reason: 'app_group_deleted' } });
  });

  it('never lists end users as members, and needs the scopes (members without a role get 403)', async () => {
    const members = await aerie.request('GET', '/api/org/acme/members', { token: acme.owner });
    expect(members.status).toBe(200);
    expect(JSON.stringify(members.body)).not.toMatch(/example\.test|list\.test/);
    const member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
    expect(await aerie.request('GET', BASE('acme'), { token: member })).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED', required: 'org.end_user.list' } });
    const admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    expect((await aerie.request('GET', BASE('acme'), { token: admin })).status).toBe(200);
  });

  it('accepts a machine token holding the scope, refuses an app-group-scoped key\'s token', async () => {
    const key = await createKey(aerie, acme, { scopes: ['org.end_user.list'] });
    const token = await tokenFor(aerie, acme, key.value);
    expect((await aerie.request('GET', BASE('acme'), { token })).status).toBe(200);
    expect((await aerie.request('POST', BASE('acme'), { token, body: { email: 'm@x.test', appGroupId: shop } })).status).toBe(403);
    const scoped = await createKey(aerie, acme, { appGroupId: shop, scopes: ['org.end_user.list'] });
    expect((await aerie.request('GET', BASE('acme'), { token: await tokenFor(aerie, acme, scoped.value) })).status).toBe(401);
  });

  // Last: spends this address's verification budget.
  it('limits invite verifications per client address (429 RATE_LIMITED)', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 21; i++) codes.push((await aerie.request('POST', '/api/enduser/verify-invite', { body: { token: `bad-${i}` } })).status);
    const limited = await aerie.request('POST', '/api/enduser/verify-invite', { body: { token: 'bad' } });
    expect(codes.filter((c) => c === 400).length).toBeGreaterThan(0);
    expect(limited).toMatchObject({ status: 429, body: { error: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) } });
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});
