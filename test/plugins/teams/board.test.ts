import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { invitationToken, invite, roleId } from '../../helpers/org-members.ts';
import { addPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import type { SoftAuthenticator } from '../../helpers/soft-authenticator.ts';
import { createTeam, orgWithPeople, type PeopleOrg } from './team-helpers.ts';

const PURPOSE = 'board.member.change';

describe('board: roster, sealed changes, organization types, director acceptance (docs/api/teams.md)', () => {
  let aerie: TestAerie;
  let ownerAuth: SoftAuthenticator;
  let corp: PeopleOrg;
  let plain: PeopleOrg;
  let spv: PeopleOrg;

  /** The owner's seal for `subject`, as the JSON string the body carries. */
  const seal = async (subject: string, purpose = PURPOSE) => JSON.stringify((await signStepUp(aerie, corp.owner, ownerAuth, { purpose, subject })).assertion);
  const appoint = (org: PeopleOrg, body: Record<string, unknown>) => aerie.request('POST', `/api/org/${org.slug}/board/members`, { token: org.owner, body });
  const board = async (org: PeopleOrg) => (await aerie.request('GET', `/api/org/${org.slug}/board`, { token: org.owner })).body;
  const seats = async (org: PeopleOrg) => (await aerie.sql(
    "select e.source_id from teams.edges e join teams.teams t on t.id = e.target_id where t.org_id = ? and t.group_kind = 'Board' order by e.created_at", [org.id],
  )).map((r) => r.source_id);

  beforeAll(async () => {
    aerie = await TestAerie.start();
    const owner = await aerie.signIn('olga@owner.test');
    ownerAuth = authenticatorFor(aerie);
    const added = await addPasskey(aerie, owner, ownerAuth);
    if (added.res.status !== 201) throw new Error(`passkey: ${added.res.status}`);
    corp = await orgWithPeople(aerie, owner, 'corp', ['ann', 'bob', 'cat'], 'Corporation');
    plain = await orgWithPeople(aerie, owner, 'plain', ['pat'], 'Standard');
    spv = await orgWithPeople(aerie, owner, 'spv', [], 'Project');
  });
  afterAll(() => aerie?.close());

  it('answers exists:false before there is a board, then creates it (201, audited; 200 once it exists)', async () => {
    expect(await board(corp)).toEqual({ exists: false, boardId: null, chairmanConnectedId: null, members: [] });
    const created = await aerie.request('POST', '/api/org/corp/board', { token: corp.owner });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ exists: true, chairmanConnectedId: null, members: [] });
    const again = await aerie.request('POST', '/api/org/corp/board', { token: corp.owner });
    expect(again.status).toBe(200);
    expect(again.body.boardId).toBe(created.body.boardId);
    expect((await auditEvents(aerie, corp, 'org.board.created')).map((e) => e.businessData)).toEqual([{ boardId: created.body.boardId }]);
  });

  it('refuses an appointment without a seal: 401 STEPUP_REQUIRED naming the purpose; nothing is written', async () => {
    const res = await appoint(corp, { ConnectedIdId: corp.ids.ann, SharePercent: 30 });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ error: 'STEPUP_REQUIRED', purpose: PURPOSE });
    expect(await seats(corp)).toEqual([]);
  });

  it.each([
    ["another target's seal", () => seal(`corp|${corp.ids.bob}|appoint`)],
    ['a seal for another action', () => seal(`corp|${corp.ids.ann}|remove`)],
    ["another organization's seal", () => seal(`spv|${corp.ids.ann}|appoint`)],
    ['a seal of another purpose', () => seal(`corp|${corp.ids.ann}|appoint`, 'api_key.long_lifetime')],
    ['no assertion at all', async () => 'not json'],
  ])('refuses an appointment with %s: 401 STEPUP_FAILED; nothing is written', async (_label, make) => {
    const res = await appoint(corp, { ConnectedIdId: corp.ids.ann, SealAssertionJson: await make() });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('STEPUP_FAILED');
    expect(await seats(corp)).toEqual([]);
  });

  it('appoints a director with a valid seal (201, SharePercent kept, sealed audit event; the seal works once)', async () => {
    const SealAssertionJson = await seal(`corp|${corp.ids.ann}|appoint`);
    const res = await appoint(corp, { ConnectedIdId: corp.ids.ann, SharePercent: 30.5, SealAssertionJson });
    expect(res.status).toBe(201);
    expect(res.body.members).toEqual([expect.objectContaining({ ConnectedIdId: corp.ids.ann, Name: 'ann@corp.test', SharePercent: 30.5, IsChairman: false })]);
    expect((await appoint(corp, { ConnectedIdId: corp.ids.ann, SealAssertionJson })).body.error).toBe('STEPUP_FAILED');
    const twice = await appoint(corp, { ConnectedIdId: corp.ids.ann, SealAssertionJson: await seal(`corp|${corp.ids.ann}|appoint`) });
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('BOARD_MEMBER_EXISTS');
    const [{ id: olga }] = await aerie.sql("select id from accounts.accounts where email = 'olga@owner.test'");
    const [event] = await auditEvents(aerie, corp, 'org.board.member_appointed');
    expect(event.businessData).toMatchObject({ connectedIdId: corp.ids.ann, sharePercent: 30.5, via: 'appointment', _humanSeal: { userId: olga } });
  });

  it("refuses another organization's member and ids with a valid seal (404), writing nothing", async () => {
    const foreign = plain.ids.pat;
    const res = await appoint(corp, { ConnectedIdId: foreign, SealAssertionJson: await seal(`corp|${foreign}|appoint`) });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ error: 'MEMBER_NOT_FOUND', field: 'ConnectedIdId' });
    const removed = await aerie.request('POST', `/api/org/corp/board/members/${foreign}/remove`, { token: corp.owner, body: { SealAssertionJson: await seal(`corp|${foreign}|remove`) } });
    expect(removed.status).toBe(404);
    const chair = await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: foreign, SealAssertionJson: await seal(`corp|${foreign}|chairman`) } });
    expect(chair.status).toBe(409);
    expect(chair.body.error).toBe('BOARD_MEMBER_REQUIRED');
    expect(await seats(corp)).toEqual([corp.ids.ann]);
    // The board of corp is not reachable through another organization's slug.
    expect((await aerie.request('GET', '/api/org/plain/board', { token: plain.owner })).body.exists).toBe(false);
  });

  it.each([
    ['GET', '/api/org/plain/board', undefined, 200],
    ['POST', '/api/org/plain/board', undefined, 400],
    ['POST', '/api/org/plain/board/members', { ConnectedIdId: 'PAT' }, 400],
    ['POST', '/api/org/plain/board/members/PAT/remove', {}, 400],
    ['PUT', '/api/org/plain/board/chairman', { LeadConnectedId: 'PAT' }, 400],
  ])('on a Standard organization %s %s answers %i (BOARD_ORG_TYPE before any seal is asked for)', async (method, path, body, status) => {
    const fill = (s: string) => s.replace('PAT', plain.ids.pat);
    const res = await aerie.request(method, fill(path), { token: plain.owner, body: body && JSON.parse(fill(JSON.stringify(body))) });
    expect(res.status).toBe(status);
    if (status === 400) expect(res.body).toMatchObject({ error: 'BOARD_ORG_TYPE', orgType: 'Standard' });
    else expect(res.body.exists).toBe(false);
    expect(await aerie.sql('select count(*)::int as n from teams.teams where org_id = ?', [plain.id])).toEqual([{ n: 0 }]);
  });

  it('refuses a Standard organization even with a valid seal', async () => {
    const res = await appoint(plain, { ConnectedIdId: plain.ids.pat, SealAssertionJson: await seal(`plain|${plain.ids.pat}|appoint`) });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('BOARD_ORG_TYPE');
  });

  it('sets the chairman from the directors (sealed), clears it with an empty target, and empties the chair when the chairman leaves', async () => {
    const bob = corp.ids.bob;
    const notSeated = await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: bob, SealAssertionJson: await seal(`corp|${bob}|chairman`) } });
    expect(notSeated.status).toBe(409);
    expect(notSeated.body.error).toBe('BOARD_MEMBER_REQUIRED');
    expect((await appoint(corp, { ConnectedIdId: bob, SealAssertionJson: await seal(`corp|${bob}|appoint`) })).status).toBe(201);
    const unsealed = await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: bob } });
    expect(unsealed.status).toBe(401);
    const set = await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: bob, SealAssertionJson: await seal(`corp|${bob}|chairman`) } });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ chairmanConnectedId: bob });
    expect(set.body.members.find((m: { ConnectedIdId: string }) => m.ConnectedIdId === bob).IsChairman).toBe(true);
    const cleared = await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: null, SealAssertionJson: await seal('corp||chairman') } });
    expect(cleared.status).toBe(200);
    expect(cleared.body.chairmanConnectedId).toBeNull();
    await aerie.request('PUT', '/api/org/corp/board/chairman', { token: corp.owner, body: { LeadConnectedId: bob, SealAssertionJson: await seal(`corp|${bob}|chairman`) } });

    const unsealedRemove = await aerie.request('POST', `/api/org/corp/board/members/${bob}/remove`, { token: corp.owner, body: {} });
    expect(unsealedRemove.status).toBe(401);
    const removed = await aerie.request('POST', `/api/org/corp/board/members/${bob}/remove`, { token: corp.owner, body: { SealAssertionJson: await seal(`corp|${bob}|remove`) } });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ chairmanConnectedId: null, members: [expect.objectContaining({ ConnectedIdId: corp.ids.ann })] });
    expect((await auditEvents(aerie, corp, 'org.board.chairman_changed')).map((e) => e.businessData.chairmanConnectedId)).toEqual([bob, null, bob]);
    expect((await auditEvents(aerie, corp, 'org.board.member_removed')).map((e) => e.businessData)).toEqual([expect.objectContaining({ connectedIdId: bob, wasChairman: true })]);
  });

  it('keeps the board out of team lists, team routes, the graph and automatic reporting lines', async () => {
    const { boardId } = await board(corp);
    await createTeam(aerie, corp, { Name: 'Finance', LeadConnectedId: corp.ids.cat });
    expect((await aerie.request('GET', '/api/org/corp/teams', { token: corp.owner })).body.Teams.map((t: { Name: string }) => t.Name)).toEqual(['Finance']);
    for (const [method, path, body] of [
      ['GET', `/api/org/corp/teams/${boardId}/members`], ['PUT', `/api/org/corp/teams/${boardId}/lead`, { LeadConnectedId: null }],
      ['POST', `/api/org/corp/teams/${boardId}/members`, { ConnectedIdId: corp.ids.cat }],
    ] as Array<[string, string, unknown?]>) {
      expect((await aerie.request(method, path, { token: corp.owner, body })).body.error).toBe('TEAM_NOT_FOUND');
    }
    const parent = await aerie.request('POST', '/api/org/corp/teams', { token: corp.owner, body: { Name: 'Under the board', ParentTeamId: boardId } });
    expect(parent.body).toMatchObject({ error: 'TEAM_NOT_FOUND', field: 'ParentTeamId' });
    const graph = (await aerie.request('GET', '/api/org/corp/reporting/graph', { token: corp.owner })).body;
    expect(graph.Teams.map((t: { Name: string }) => t.Name)).toEqual(['Finance']);
    expect(graph.Edges.some((e: { TargetConnectedId: string }) => e.TargetConnectedId === boardId)).toBe(false);
    expect(await aerie.sql("select count(*)::int as n from teams.edges where org_id = ? and derived_from_team_id = ?", [corp.id, boardId])).toEqual([{ n: 0 }]);
  });

  it('seats an accepted director on the board (created when missing) with SharePercent and the chair, in the acceptance', async () => {
    const director = await roleId(aerie, spv.owner, 'spv', 'ORG_DIRECTOR');
    const email = 'dora@example.com';
    const sent = await invite(aerie, spv.owner, 'spv', {
      Email: email, RoleId: director, BoardChairman: true, BoardSharePercent: 12.5, SealAssertionJson: await seal(`spv|${email}|appoint-invite`),
    });
    expect(sent.status).toBe(201);
    expect(await board(spv)).toMatchObject({ exists: false });
    const dora = await aerie.signIn(email);
    const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token: dora, body: { Token: invitationToken(aerie, email) } });
    expect(accepted.status).toBe(200);
    const id = accepted.body.Member.ConnectedIdId;
    expect(await board(spv)).toMatchObject({
      exists: true, chairmanConnectedId: id, members: [expect.objectContaining({ ConnectedIdId: id, Email: email, SharePercent: 12.5, IsChairman: true })],
    });
    const events = await auditEvents(aerie, spv, 'org.board.created', 'org.board.member_appointed', 'org.board.chairman_changed', 'org.member.director_accepted');
    expect(events.map((e) => e.eventType)).toEqual(['org.board.created', 'org.board.member_appointed', 'org.board.chairman_changed', 'org.member.director_accepted']);
    expect(events[1]).toMatchObject({ actorType: 'account', businessData: { connectedIdId: id, sharePercent: 12.5, via: 'invitation', invitationId: sent.body.InvitationId } });
  });
});
