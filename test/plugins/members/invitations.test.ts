import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { ManualClock } from '../../../core/clock.ts';
import { customRole, invitationMails, invitationToken, invite, joinOrg, roleId, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const DAY = 86400;

describe('members: invitations (send, resend, cancel, accept, decline, accept-with-register, expiry)', () => {
  const clock = new ManualClock(new Date('2026-06-01T09:00:00Z'));
  let aerie: TestAerie;
  let owner: string;
  let guestRole: string;

  const row = async (id: string) => (await aerie.sql('select * from members.invitations where id = ?', [id]))[0];
  const accept = (token: string, Token: string) => aerie.request('POST', '/api/org/invitation/accept', { token, body: { Token } });
  const decline = (Token: string) => aerie.request('POST', '/api/org/invitation/decline', { body: { Token } });
  const register = (Token: string, DisplayName?: string) =>
    aerie.request('POST', '/api/org/invitation/accept-with-register', { body: { Token, ...(DisplayName ? { DisplayName } : {}) } });

  beforeAll(async () => {
    aerie = await startMembers({ clock });
    owner = await aerie.signIn('owner@acme.example', 'Olive');
    await createOrg(aerie, owner, 'acme');
    guestRole = await roleId(aerie, owner, 'acme', 'ORG_GUEST');
  });
  afterAll(() => aerie?.close());

  it('invites: 201 with the invitation (never its token), mails a 256-bit token kept only as SHA-256, expiring in 7 days', async () => {
    const res = await invite(aerie, owner, 'acme', { Email: 'Ann@Example.com', RoleId: guestRole });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      Email: 'ann@example.com', RoleId: guestRole, RoleKey: 'ORG_GUEST', Status: 'pending', SendCount: 1,
      ExpiresAt: new Date(clock.now().getTime() + 7 * DAY * 1000).toISOString(), ConnectedIdId: null,
    });
    const token = invitationToken(aerie, 'ann@example.com');
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/); // 32 bytes = 256 bits
    expect(JSON.stringify(res.body)).not.toContain(token);
    const stored = await row(res.body.InvitationId);
    expect(stored.token_hash).toBe(sha256(token));
    expect(JSON.stringify(stored)).not.toContain(token);
    const [mail] = invitationMails(aerie, 'ann@example.com');
    expect(mail).toMatch(/^Subject: You are invited to join Org acme on Aerie$/m);
    expect(mail).toContain('/invitation?token=');
  });

  it('refuses a second open invitation for the same address (409 INVITATION_PENDING) and invitations of members (409 ALREADY_MEMBER)', async () => {
    const again = await invite(aerie, owner, 'acme', { Email: 'ann@example.com', RoleId: guestRole });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('INVITATION_PENDING');
    const self = await invite(aerie, owner, 'acme', { Email: 'owner@acme.example', RoleId: guestRole });
    expect(self.status).toBe(409);
    expect(self.body).toMatchObject({ error: 'ALREADY_MEMBER', status: 'active' });
  });

  it.each([
    ['missing Email', 400, 'VALIDATION_FAILED', { RoleId: '00000000-0000-4000-8000-000000000000' }],
    ['bad Email', 400, 'VALIDATION_FAILED', { Email: 'not-an-email', RoleId: '00000000-0000-4000-8000-000000000000' }],
    ['unknown field', 400, 'VALIDATION_FAILED', { Email: 'x@example.com', RoleId: '00000000-0000-4000-8000-000000000000', Extra: 1 }],
    ['share above 100', 400, 'VALIDATION_FAILED', { Email: 'x@example.com', RoleId: '00000000-0000-4000-8000-000000000000', BoardSharePercent: 100.5 }],
    ['unknown role', 404, 'ROLE_NOT_FOUND', { Email: 'x@example.com', RoleId: '00000000-0000-4000-8000-000000000000' }],
  ])('refuses %s (%i %s) and writes nothing', async (_label, status, code, body) => {
    const before = await aerie.sql('select count(*)::int as n from members.invitations');
    const res = await invite(aerie, owner, 'acme', body);
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    expect(await aerie.sql('select count(*)::int as n from members.invitations')).toEqual(before);
  });

  it('refuses director fields on a non-director role', async () => {
    const res = await invite(aerie, owner, 'acme', { Email: 'x@example.com', RoleId: guestRole, BoardChairman: true });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field: 'BoardChairman' });
  });

  it('accepts for a signed-in account with the same email only; the role is assigned and the membership type derived', async () => {
    const Token = invitationToken(aerie, 'ann@example.com');
    const mallory = await aerie.signIn('mallory@example.com');
    const wrong = await accept(mallory, Token);
    expect(wrong.status).toBe(403);
    expect(wrong.body.error).toBe('INVITATION_EMAIL_MISMATCH');
    const anonymous = await aerie.request('POST', '/api/org/invitation/accept', { body: { Token } });
    expect(anonymous.status).toBe(401);

    const ann = await aerie.signIn('ann@example.com');
    const ok = await accept(ann, Token);
    expect(ok.status).toBe(200);
    expect(ok.body.Organization).toMatchObject({ slug: 'acme', name: 'Org acme' });
    expect(ok.body.Member).toMatchObject({ Role: 'Member', Status: 'active', MembershipType: 'Guest' });
    expect(ok.body.Member.Roles).toEqual([expect.objectContaining({ RoleKey: 'ORG_GUEST', RoleId: guestRole })]);
    const [invitation] = await aerie.sql("select status, membership_id from members.invitations where email = 'ann@example.com'");
    expect(invitation).toEqual({ status: 'accepted', membership_id: ok.body.Member.ConnectedIdId });
    expect((await aerie.request('GET', '/api/org/acme', { token: ann })).status).toBe(200);
  });

  it('refuses a spent token: 409 INVITATION_NOT_PENDING for accept, decline and register', async () => {
    const Token = invitationToken(aerie, 'ann@example.com');
    const ann = await aerie.signIn('ann@example.com');
    for (const res of [await accept(ann, Token), await decline(Token), await register(Token)]) {
      expect(res.status).toBe(409);
      expect(res.body).toMatchObject({ error: 'INVITATION_NOT_PENDING', status: 'accepted' });
    }
    expect(await aerie.sql("select count(*)::int as n from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = 'ann@example.com'")).toEqual([{ n: 1 }]);
  });

  it('answers 404 INVITATION_NOT_FOUND for a token that was never issued', async () => {
    const res = await decline('A'.repeat(43));
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('INVITATION_NOT_FOUND');
  });

  it('declines with the token alone; the invitation is final', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'dee@example.com', RoleId: guestRole });
    const Token = invitationToken(aerie, 'dee@example.com');
    const res = await decline(Token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ InvitationId: sent.body.InvitationId, Status: 'declined' });
    const dee = await aerie.signIn('dee@example.com');
    expect((await accept(dee, Token)).body).toMatchObject({ error: 'INVITATION_NOT_PENDING', status: 'declined' });
    expect((await aerie.request('POST', '/api/org/acme/members/invite/resend', { token: owner, body: { InvitationId: sent.body.InvitationId } })).body)
      .toMatchObject({ error: 'INVITATION_NOT_PENDING', status: 'declined' });
  });

  it('cancels (204); a cancelled invitation cannot be accepted, re-sent or cancelled again', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'cal@example.com', RoleId: guestRole });
    const Token = invitationToken(aerie, 'cal@example.com');
    const res = await aerie.request('DELETE', `/api/org/acme/members/invite/${sent.body.InvitationId}`, { token: owner });
    expect(res.status).toBe(204);
    const cal = await aerie.signIn('cal@example.com');
    expect((await accept(cal, Token)).body).toMatchObject({ error: 'INVITATION_NOT_PENDING', status: 'cancelled' });
    const again = await aerie.request('DELETE', `/api/org/acme/members/invite/${sent.body.InvitationId}`, { token: owner });
    expect(again.status).toBe(409);
    // A new invitation for the address is possible once the old one is closed.
    expect((await invite(aerie, owner, 'acme', { Email: 'cal@example.com', RoleId: guestRole })).status).toBe(201);
  });

  it('lets a member who may only invite cancel or re-send only invitations to roles they could grant (403 PERMISSION_DENIED, nothing changes)', async () => {
    const inviterRole = await customRole(aerie, owner, 'acme', 'INVITER', ['org.member.invite']);
    const mia = await joinOrg(aerie, owner, 'acme', 'mia@example.com', inviterRole);
    const ownersInvite = await invite(aerie, owner, 'acme', { Email: 'vip@example.com', RoleId: guestRole });
    const id = ownersInvite.body.InvitationId;
    const cancel = await aerie.request('DELETE', `/api/org/acme/members/invite/${id}`, { token: mia.token });
    expect(cancel.status).toBe(403);
    expect(cancel.body).toMatchObject({ error: 'PERMISSION_DENIED', errorCode: 'PERMISSION_DENIED', required: expect.stringMatching(/^org\.(project|meeting)\./) });
    clock.advance(61_000);
    const resend = await aerie.request('POST', '/api/org/acme/members/invite/resend', { token: mia.token, body: { InvitationId: id } });
    expect(resend.status).toBe(403);
    expect(await row(id)).toMatchObject({ status: 'pending', send_count: 1 });
    // What she could invite to, she may cancel.
    const own = await invite(aerie, mia.token, 'acme', { Email: 'peer@example.com', RoleId: inviterRole });
    expect(own.status).toBe(201);
    expect((await aerie.request('DELETE', `/api/org/acme/members/invite/${own.body.InvitationId}`, { token: mia.token })).status).toBe(204);
    expect((await aerie.request('DELETE', `/api/org/acme/members/invite/${id}`, { token: owner })).status).toBe(204);
  });

  it('re-sends with a new token: the old token stops working, the expiry restarts, SendCount grows', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'rex@example.com', RoleId: guestRole });
    const first = invitationToken(aerie, 'rex@example.com');
    clock.advance(3 * DAY);
    const res = await aerie.request('POST', '/api/org/acme/members/invite/resend', { token: owner, body: { Email: 'REX@example.com' } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ InvitationId: sent.body.InvitationId, Status: 'pending', SendCount: 2, ExpiresAt: new Date(clock.now().getTime() + 7 * DAY * 1000).toISOString() });
    const second = invitationToken(aerie, 'rex@example.com');
    expect(second).not.toBe(first);
    expect(invitationMails(aerie, 'rex@example.com')).toHaveLength(2);
    expect((await decline(first)).status).toBe(404);
    const rex = await aerie.signIn('rex@example.com');
    expect((await accept(rex, second)).status).toBe(200);
  });

  it('re-sending within 60 s of the last send: 429 RATE_LIMITED with retryAfterSeconds, and nothing changes', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'quick@example.com', RoleId: guestRole });
    const resend = () => aerie.request('POST', '/api/org/acme/members/invite/resend', { token: owner, body: { InvitationId: sent.body.InvitationId } });
    const before = await row(sent.body.InvitationId);
    const eventsBefore = (await auditEvents(aerie, { slug: 'acme' }, 'org.member.invitation_resent')).length;
    clock.advance(45);
    const early = await resend();
    expect(early.status).toBe(429);
    expect(early.body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 15 });
    expect(await row(sent.body.InvitationId)).toEqual(before);
    expect(invitationMails(aerie, 'quick@example.com')).toHaveLength(1);
    expect(await auditEvents(aerie, { slug: 'acme' }, 'org.member.invitation_resent')).toHaveLength(eventsBefore);
    clock.advance(15);
    const ok = await resend();
    expect(ok.status).toBe(200);
    expect(ok.body.SendCount).toBe(2);
    expect((await resend()).body).toMatchObject({ error: 'RATE_LIMITED', retryAfterSeconds: 60 });
    expect(invitationMails(aerie, 'quick@example.com')).toHaveLength(2);
  });

  it('expires after 7 days: 410 INVITATION_EXPIRED, written as expired; a re-send revives it', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'eve@example.com', RoleId: guestRole });
    const Token = invitationToken(aerie, 'eve@example.com');
    clock.advance(7 * DAY - 1);
    const list = await aerie.request('GET', '/api/org/acme/members/invitations?status=pending', { token: owner });
    expect(list.body.Invitations.map((i: { Email: string }) => i.Email)).toContain('eve@example.com');
    clock.advance(1);
    const listed = await aerie.request('GET', '/api/org/acme/members/invitations?status=expired', { token: owner });
    expect(listed.body.Invitations.map((i: { Email: string }) => i.Email)).toContain('eve@example.com');
    expect(listed.body.Invitations.every((i: { Status: string }) => i.Status === 'expired')).toBe(true);
    const eve = await aerie.signIn('eve@example.com');
    const res = await accept(eve, Token);
    expect(res.status).toBe(410);
    expect(res.body.error).toBe('INVITATION_EXPIRED');
    expect((await row(sent.body.InvitationId)).status).toBe('expired');
    expect((await decline(Token)).status).toBe(410);
    expect((await register(Token)).status).toBe(410);
    expect((await aerie.request('GET', '/api/org/acme', { token: eve })).status).toBe(404);

    const resent = await aerie.request('POST', '/api/org/acme/members/invite/resend', { token: owner, body: { InvitationId: sent.body.InvitationId } });
    expect(resent.status).toBe(200);
    expect(resent.body.Status).toBe('pending');
    expect((await accept(eve, Token)).status).toBe(404);
    expect((await accept(eve, invitationToken(aerie, 'eve@example.com'))).status).toBe(200);
  });

  it('an expired open invitation does not block a new one for the same address', async () => {
    await invite(aerie, owner, 'acme', { Email: 'late@example.com', RoleId: guestRole });
    clock.advance(8 * DAY);
    const res = await invite(aerie, owner, 'acme', { Email: 'late@example.com', RoleId: guestRole });
    expect(res.status).toBe(201);
    const rows = await aerie.sql("select status from members.invitations where email = 'late@example.com' order by created_at");
    expect(rows.map((r) => r.status)).toEqual(['expired', 'pending']);
  });

  it('accept-with-register: creates the verified account, opens a session and joins in one step', async () => {
    const sent = await invite(aerie, owner, 'acme', { Email: 'newbie@example.com', RoleId: guestRole });
    const Token = invitationToken(aerie, 'newbie@example.com');
    const res = await register(Token, 'Newbie');
    expect(res.status).toBe(201);
    expect(res.body.account).toMatchObject({ email: 'newbie@example.com', displayName: 'Newbie', emailVerified: true });
    expect(res.body.Member).toMatchObject({ Role: 'Member', MembershipType: 'Guest' });
    expect(res.body.sessionToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const me = await aerie.request('GET', '/api/v1/users/me?_t=1', { token: res.body.sessionToken });
    expect(me.body.organizations.map((o: { slug: string }) => o.slug)).toEqual(['acme']);
    expect((await row(sent.body.InvitationId)).status).toBe('accepted');
    expect((await register(Token)).body).toMatchObject({ error: 'INVITATION_NOT_PENDING' });
  });

  it('accept-with-register refuses an address that already has an account (409 ACCOUNT_EXISTS) and changes nothing', async () => {
    await aerie.signIn('has-account@example.com');
    const sent = await invite(aerie, owner, 'acme', { Email: 'has-account@example.com', RoleId: guestRole });
    const res = await register(invitationToken(aerie, 'has-account@example.com'));
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('ACCOUNT_EXISTS');
    expect((await row(sent.body.InvitationId)).status).toBe('pending');
  });

  it('lets a revoked member come back through a new invitation (same membership id, the new role only)', async () => {
    const { token, id } = await joinOrg(aerie, owner, 'acme', 'back@example.com', 'ORG_FREELANCER');
    expect((await aerie.request('POST', `/api/org/acme/members/${id}/revoke`, { token: owner })).status).toBe(200);
    expect((await aerie.request('GET', '/api/org/acme', { token })).status).toBe(404);
    await invite(aerie, owner, 'acme', { Email: 'back@example.com', RoleId: guestRole });
    const res = await accept(token, invitationToken(aerie, 'back@example.com'));
    expect(res.status).toBe(200);
    expect(res.body.Member).toMatchObject({ ConnectedIdId: id, Status: 'active', MembershipType: 'Guest' });
    expect(res.body.Member.Roles.map((r: { RoleKey: string }) => r.RoleKey)).toEqual(['ORG_GUEST']);
  });

  it('lists invitations newest first with their effective state', async () => {
    const res = await aerie.request('GET', '/api/org/acme/members/invitations', { token: owner });
    expect(res.status).toBe(200);
    const states = new Set(res.body.Invitations.map((i: { Status: string }) => i.Status));
    expect(states).toEqual(new Set(['accepted', 'declined', 'cancelled', 'pending', 'expired']));
    expect(JSON.stringify(res.body)).not.toMatch(/token/i);
  });
  it('records every step on the audit chain (org.member.invited with the inviter as actor, …)', async () => {
    const [{ id: ownerAccount }] = await aerie.sql("select id from accounts.accounts where email = 'owner@acme.example'");
    const [first] = await auditEvents(aerie, { slug: 'acme' }, 'org.member.invited');
    expect(first).toEqual({
      eventType: 'org.member.invited', actorType: 'account', actorId: ownerAccount,
      businessData: expect.objectContaining({ email: 'ann@example.com', roleId: guestRole, roleKey: 'ORG_GUEST', invitationId: expect.any(String) }),
    });
    const types = new Set((await auditEvents(aerie, { slug: 'acme' })).map((e) => e.eventType));
    for (const t of ['org.member.invitation_resent', 'org.member.invitation_cancelled', 'org.member.invitation_accepted', 'org.member.invitation_declined', 'org.member.invitation_expired', 'org.role.assigned', 'org.member.revoked']) {
      expect(types).toContain(t);
    }
    const accepted = (await auditEvents(aerie, { slug: 'acme' }, 'org.member.invitation_accepted')).find((e) => e.businessData.roleKey === 'ORG_GUEST');
    expect(accepted).toMatchObject({ actorType: 'account', businessData: { membershipType: 'Guest' } });
    // Refused requests leave no event.
    expect((await auditEvents(aerie, { slug: 'acme' }, 'org.member.invited')).every((e) => e.businessData.email !== 'x@example.com')).toBe(true);
  });
});
