import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { addPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { fixtureState } from './fixtures/members-fixture/index.ts';
import { assign, invitationToken, invite, joinOrg, roleId, startMembers } from '../../helpers/org-members.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const PURPOSE = 'board.member.change';

describe('members: director invitations (board seal, organization type, company-email gate, seating)', () => {
  let aerie: TestAerie;
  let owner: string;
  let ownerAuth: SoftAuthenticator;
  let director: string;
  let representative: string;

  /** A seal by `token`'s passkey for `subject`, as the JSON string the invite body carries. */
  const seal = async (subject: string, token = owner, auth = ownerAuth) =>
    JSON.stringify((await signStepUp(aerie, token, auth, { purpose: PURPOSE, subject })).assertion);
  const inviteDirector = async (email: string, RoleId: string, extra: Record<string, unknown> = {}, slug = 'corp') =>
    invite(aerie, owner, slug, { Email: email, RoleId, SealAssertionJson: await seal(`${slug}|${email.toLowerCase()}|appoint-invite`), ...extra });

  beforeAll(async () => {
    aerie = await startMembers();
    owner = await aerie.signIn('olga@acme.example');
    ownerAuth = authenticatorFor(aerie);
    const added = await addPasskey(aerie, owner, ownerAuth);
    if (added.res.status !== 201) throw new Error(`passkey: ${added.res.status} ${JSON.stringify(added.res.body)}`);
    await createOrg(aerie, owner, 'corp', 'Corporation');
    director = await roleId(aerie, owner, 'corp', 'ORG_DIRECTOR');
    representative = await roleId(aerie, owner, 'corp', 'REPRESENTATIVE_DIRECTOR');
  });
  beforeEach(() => {
    Object.assign(fixtureState(), { seated: [], failNext: false, domains: ['acme.example'] });
  });
  afterAll(() => aerie?.close());

  it('refuses a director invitation without a seal: 401 STEPUP_REQUIRED naming the purpose; nothing is written', async () => {
    const res = await invite(aerie, owner, 'corp', { Email: 'dora@example.com', RoleId: director });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'STEPUP_REQUIRED', purpose: PURPOSE });
    expect(await aerie.sql("select count(*)::int as n from members.invitations where email = 'dora@example.com'")).toEqual([{ n: 0 }]);
  });

  it.each([
    ['not an assertion', async () => 'not json'],
    ['bound to another invitee', async () => seal('corp|someone-else@example.com|appoint-invite')],
    ['bound to another organization', async () => seal('other|dora@example.com|appoint-invite')],
    ['bound to another purpose', async () => JSON.stringify((await signStepUp(aerie, owner, ownerAuth, { purpose: 'api_key.long_lifetime', subject: 'corp|dora@example.com|appoint-invite' })).assertion)],
  ])('refuses a seal %s: 401 STEPUP_FAILED', async (_label, make) => {
    const res = await invite(aerie, owner, 'corp', { Email: 'dora@example.com', RoleId: director, SealAssertionJson: await make() });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('STEPUP_FAILED');
  });

  it("refuses another person's seal (401 STEPUP_FAILED)", async () => {
    const { token: vic } = await joinOrg(aerie, owner, 'corp', 'vic@example.com');
    const vicAuth = authenticatorFor(aerie);
    await addPasskey(aerie, vic, vicAuth);
    const foreign = await seal('corp|dora@example.com|appoint-invite', vic, vicAuth);
    const res = await invite(aerie, owner, 'corp', { Email: 'dora@example.com', RoleId: director, SealAssertionJson: foreign });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('STEPUP_FAILED');
  });

  it('invites an ORG_DIRECTOR with a valid seal (once: a replay fails) and keeps the board fields', async () => {
    const SealAssertionJson = await seal('corp|dora@example.com|appoint-invite');
    const res = await invite(aerie, owner, 'corp', { Email: 'Dora@Example.com', RoleId: director, BoardChairman: true, BoardSharePercent: 12.5, SealAssertionJson, SealEmail: 'olga@acme.example' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ RoleKey: 'ORG_DIRECTOR', BoardChairman: true, BoardSharePercent: 12.5, Status: 'pending' });
    const replay = await invite(aerie, owner, 'corp', { Email: 'dora@example.com', RoleId: director, SealAssertionJson });
    expect(replay.body).toMatchObject({ error: 'STEPUP_FAILED' });
    // The sealed event carries the human seal marker the kernel adds for sealed requests.
    const [event] = (await auditEvents(aerie, { slug: 'corp' }, 'org.member.invited')).filter((e) => e.businessData.email === 'dora@example.com');
    const [{ id: olga }] = await aerie.sql("select id from accounts.accounts where email = 'olga@acme.example'");
    expect(event.businessData).toMatchObject({ roleKey: 'ORG_DIRECTOR', boardChairman: true, boardSharePercent: 12.5, sealEmail: 'olga@acme.example', _humanSeal: { userId: olga } });
  });

  it('refuses a SealEmail that is not the sealing account (401 STEPUP_FAILED)', async () => {
    const res = await inviteDirector('sid@example.com', director, { SealEmail: 'someone@acme.example' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'other_account' });
  });

  it('seats the director on acceptance: role assigned, type Director, hook and preset grants', async () => {
    const dora = await aerie.signIn('dora@example.com');
    const res = await aerie.request('POST', '/api/org/invitation/accept', { token: dora, body: { Token: invitationToken(aerie, 'dora@example.com') } });
    expect(res.status).toBe(200);
    expect(res.body.Member).toMatchObject({ MembershipType: 'Director', Roles: [expect.objectContaining({ RoleKey: 'ORG_DIRECTOR', Permissions: ['org.meeting.list', 'org.meeting.read', 'view.business'] })] });
    expect(fixtureState().seated).toEqual([expect.objectContaining({
      connectedIdId: res.body.Member.ConnectedIdId, roleKey: 'ORG_DIRECTOR', boardChairman: true, boardSharePercent: 12.5,
    })]);
    expect((await aerie.request('GET', '/api/org/corp/rbac-fixture/business', { token: dora })).status).toBe(200);
    expect((await auditEvents(aerie, { slug: 'corp' }, 'org.member.director_accepted')).map((e) => e.businessData)).toEqual([
      expect.objectContaining({ connectedIdId: res.body.Member.ConnectedIdId, roleKey: 'ORG_DIRECTOR', boardChairman: true }),
    ]);
    const members = await aerie.request('GET', '/api/org/corp/members', { token: owner });
    expect(members.body.Members.find((m: { Email: string }) => m.Email === 'dora@example.com')).toMatchObject({ BoardChairman: true, BoardSharePercent: 12.5, MembershipType: 'Director' });
  });

  it('rolls the acceptance back when the board refuses to seat the director', async () => {
    expect((await inviteDirector('ray@example.com', director)).status).toBe(201);
    fixtureState().failNext = true;
    const ray = await aerie.signIn('ray@example.com');
    const Token = invitationToken(aerie, 'ray@example.com');
    const res = await aerie.request('POST', '/api/org/invitation/accept', { token: ray, body: { Token } });
    expect(res.status).toBe(500);
    expect(await aerie.sql("select status from members.invitations where email = 'ray@example.com'")).toEqual([{ status: 'pending' }]);
    expect((await aerie.request('GET', '/api/org/corp', { token: ray })).status).toBe(404);
    expect((await aerie.request('POST', '/api/org/invitation/accept', { token: ray, body: { Token } })).status).toBe(200);
  });

  it.each([
    ['a verified domain', 'rita@acme.example', 201],
    ['a subdomain of one', 'rita@eu.acme.example', 201],
    ['a look-alike domain', 'rita@notacme.example', 400],
    ['a public mailbox', 'rita@gmail.com', 400],
  ])('gates REPRESENTATIVE_DIRECTOR on the company email: %s answers %i', async (_label, email, status) => {
    const res = await inviteDirector(email, representative);
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body).toMatchObject({ error: 'COMPANY_EMAIL_REQUIRED', field: 'Email' });
    else await aerie.request('DELETE', `/api/org/corp/members/invite/${res.body.InvitationId}`, { token: owner });
  });

  it('exempts ORG_DIRECTOR from the company-email gate, and fails closed without verified domains', async () => {
    expect((await inviteDirector('outside@gmail.com', director)).status).toBe(201);
    fixtureState().domains = [];
    expect((await inviteDirector('rita@acme.example', representative)).body.error).toBe('COMPANY_EMAIL_REQUIRED');
  });

  it('allows directors in Project organizations and refuses them elsewhere (400 DIRECTOR_ORG_TYPE, no seal asked)', async () => {
    await createOrg(aerie, owner, 'spv', 'Project');
    expect((await inviteDirector('pia@example.com', await roleId(aerie, owner, 'spv', 'ORG_DIRECTOR'), {}, 'spv')).status).toBe(201);
    await createOrg(aerie, owner, 'shop', 'Standard');
    const res = await invite(aerie, owner, 'shop', { Email: 'pia@example.com', RoleId: await roleId(aerie, owner, 'shop', 'ORG_DIRECTOR') });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: 'DIRECTOR_ORG_TYPE', orgType: 'Standard' });
  });

  it('appoints an existing member by assignment with a seal bound to the member', async () => {
    const { id } = await joinOrg(aerie, owner, 'corp', 'mia@example.com');
    const SealAssertionJson = await seal(`corp|${id}|appoint`);
    const res = await aerie.request('POST', `/api/org/corp/roles/${director}/members`, { token: owner, body: { ConnectedIdId: id, SealAssertionJson } });
    expect(res.status).toBe(201);
    expect(res.body.MembershipType).toBe('Director');
    const other = await joinOrg(aerie, owner, 'corp', 'ned@example.com');
    const wrong = await aerie.request('POST', `/api/org/corp/roles/${director}/members`, { token: owner, body: { ConnectedIdId: other.id, SealAssertionJson: await seal(`corp|${id}|appoint`) } });
    expect(wrong.body.error).toBe('STEPUP_FAILED');
    expect((await assign(aerie, owner, 'corp', director, other.id)).body.error).toBe('STEPUP_REQUIRED');
  });
});
