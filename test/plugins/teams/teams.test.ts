import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMember, createTeam, orgWithPeople, relate, reportingEdges, type PeopleOrg } from './team-helpers.ts';

describe('teams: create, nest, lead, members (docs/api/teams.md)', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let other: PeopleOrg;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    const owner = await aerie.signIn('olga@owner.test');
    acme = await orgWithPeople(aerie, owner, 'acme', ['ann', 'bob', 'cat', 'dan', 'eve']);
    other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', ['zed']);
  });
  afterAll(() => aerie?.close());

  it('creates a team (201), lists it, and records org.team.created', async () => {
    const res = await aerie.request('POST', '/api/org/acme/teams', { token: acme.owner, body: { Name: ' Platform ', Kind: 'Engineering' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ Name: 'Platform', Kind: 'Engineering', LeadConnectedId: null, ParentTeamId: null, MemberCount: 0 });
    const list = await aerie.request('GET', '/api/org/acme/teams', { token: acme.owner });
    expect(list.status).toBe(200);
    expect(list.body.Teams.map((t: { TeamId: string }) => t.TeamId)).toContain(res.body.TeamId);
    const [event] = (await auditEvents(aerie, acme, 'org.team.created')).filter((e) => e.businessData.teamId === res.body.TeamId);
    expect(event.businessData).toMatchObject({ name: 'Platform', kind: 'Engineering', leadConnectedId: null, parentTeamId: null });
  });

  it.each([
    ['no Name', {}, 'VALIDATION_FAILED'],
    ['an empty Name', { Name: '  ' }, 'VALIDATION_FAILED'],
    ['a Name with a control character', { Name: 'a\u202Eb' }, 'VALIDATION_FAILED'],
    ['an unknown member', { Name: 'X', Color: 'red' }, 'VALIDATION_FAILED'],
    ['a malformed ParentTeamId', { Name: 'X', ParentTeamId: 'nope' }, 'VALIDATION_FAILED'],
  ])('refuses %s (400) and writes nothing', async (_label, body, code) => {
    const before = await aerie.sql('select count(*)::int as n from teams.teams');
    const res = await aerie.request('POST', '/api/org/acme/teams', { token: acme.owner, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(code);
    expect(await aerie.sql('select count(*)::int as n from teams.teams')).toEqual(before);
  });

  it("refuses another organization's parent, lead and team ids (404) and writes nothing", async () => {
    const foreignTeam = await createTeam(aerie, other, { Name: 'Theirs' });
    const before = await aerie.sql('select count(*)::int as n from teams.teams');
    const parent = await aerie.request('POST', '/api/org/acme/teams', { token: acme.owner, body: { Name: 'X', ParentTeamId: foreignTeam } });
    expect(parent.status).toBe(404);
    expect(parent.body).toMatchObject({ error: 'TEAM_NOT_FOUND', field: 'ParentTeamId' });
    const lead = await aerie.request('POST', '/api/org/acme/teams', { token: acme.owner, body: { Name: 'X', LeadConnectedId: other.ids.zed } });
    expect(lead.status).toBe(404);
    expect(lead.body).toMatchObject({ error: 'MEMBER_NOT_FOUND', field: 'LeadConnectedId' });
    expect(await aerie.sql('select count(*)::int as n from teams.teams')).toEqual(before);

    const own = await createTeam(aerie, acme, { Name: 'Ours' });
    const calls: Array<[string, string, unknown?]> = [
      ['PATCH', `/api/org/acme/teams/${foreignTeam}`, { Name: 'Mine' }],
      ['PUT', `/api/org/acme/teams/${foreignTeam}/lead`, { LeadConnectedId: acme.ids.ann }],
      ['GET', `/api/org/acme/teams/${foreignTeam}/members`],
      ['POST', `/api/org/acme/teams/${foreignTeam}/members`, { ConnectedIdId: acme.ids.ann }],
      ['DELETE', `/api/org/acme/teams/${foreignTeam}/members/${other.ids.zed}`],
    ];
    for (const [method, path, body] of calls) {
      const res = await aerie.request(method, path, { token: acme.owner, body });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.body.error).toBe('TEAM_NOT_FOUND');
    }
    const foreignMember = await addMember(aerie, acme, own, other.ids.zed);
    expect(foreignMember.status).toBe(404);
    expect(foreignMember.body).toMatchObject({ error: 'MEMBER_NOT_FOUND', field: 'ConnectedIdId' });
    const foreignLead = await aerie.request('PUT', `/api/org/acme/teams/${own}/lead`, { token: acme.owner, body: { LeadConnectedId: other.ids.zed } });
    expect(foreignLead.status).toBe(404);
    // The other organization's owner cannot reach acme's team through their own slug either.
    const theirs = await aerie.request('GET', `/api/org/other/teams/${own}/members`, { token: other.owner });
    expect(theirs.status).toBe(404);
    expect((await aerie.request('GET', '/api/org/other/teams', { token: other.owner })).body.Teams.map((t: { Name: string }) => t.Name)).toEqual(['Theirs']);
    expect(await aerie.sql('select name from teams.teams where id = ?', [foreignTeam])).toEqual([{ name: 'Theirs' }]);
  });

  it('nests teams and refuses a parent cycle (409 TEAM_PARENT_CYCLE with the path), changing nothing', async () => {
    const top = await createTeam(aerie, acme, { Name: 'Top' });
    const mid = await createTeam(aerie, acme, { Name: 'Mid', ParentTeamId: top });
    const low = await createTeam(aerie, acme, { Name: 'Low', ParentTeamId: mid });
    const self = await aerie.request('PATCH', `/api/org/acme/teams/${top}`, { token: acme.owner, body: { ParentTeamId: top } });
    expect(self.status).toBe(409);
    expect(self.body).toMatchObject({ error: 'TEAM_PARENT_CYCLE', path: [top, top] });
    const deep = await aerie.request('PATCH', `/api/org/acme/teams/${top}`, { token: acme.owner, body: { ParentTeamId: low } });
    expect(deep.status).toBe(409);
    expect(deep.body).toMatchObject({ error: 'TEAM_PARENT_CYCLE', path: [top, low, mid, top] });
    expect(await aerie.sql('select parent_team_id from teams.teams where id = ?', [top])).toEqual([{ parent_team_id: null }]);
    const moved = await aerie.request('PATCH', `/api/org/acme/teams/${low}`, { token: acme.owner, body: { ParentTeamId: top, Name: 'Lower' } });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ Name: 'Lower', ParentTeamId: top });
    const [event] = (await auditEvents(aerie, acme, 'org.team.updated')).filter((e) => e.businessData.teamId === low);
    expect(event.businessData).toMatchObject({ changed: ['name', 'parentTeamId'], parentTeamId: top });
  });

  it('adds members, lists them with and without sub-teams, and removes them', async () => {
    const parent = await createTeam(aerie, acme, { Name: 'Sales', LeadConnectedId: acme.ids.ann });
    const child = await createTeam(aerie, acme, { Name: 'Sales EU', ParentTeamId: parent, LeadConnectedId: acme.ids.bob });
    const added = await addMember(aerie, acme, parent, acme.ids.cat);
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ needsResolution: false, removedManagers: [], member: { ConnectedIdId: acme.ids.cat, Name: 'cat@acme.test', TeamId: parent, IsLead: false, ReportsToLead: true } });
    expect((await addMember(aerie, acme, child, acme.ids.dan)).status).toBe(201);
    const again = await addMember(aerie, acme, parent, acme.ids.cat);
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('TEAM_MEMBER_EXISTS');

    const own = await aerie.request('GET', `/api/org/acme/teams/${parent}/members`, { token: acme.owner });
    expect(own.body.Members.map((m: { ConnectedIdId: string }) => m.ConnectedIdId)).toEqual([acme.ids.cat]);
    const deep = await aerie.request('GET', `/api/org/acme/teams/${parent}/members?includeSubTeams=true`, { token: acme.owner });
    expect(deep.body.Members.map((m: { ConnectedIdId: string; TeamId: string }) => [m.ConnectedIdId, m.TeamId])).toEqual([[acme.ids.cat, parent], [acme.ids.dan, child]]);
    expect((await aerie.request('GET', '/api/org/acme/teams', { token: acme.owner })).body.Teams.find((t: { TeamId: string }) => t.TeamId === parent).MemberCount).toBe(1);

    const removed = await aerie.request('DELETE', `/api/org/acme/teams/${parent}/members/${acme.ids.cat}`, { token: acme.owner });
    expect(removed.status).toBe(204);
    expect((await aerie.request('DELETE', `/api/org/acme/teams/${parent}/members/${acme.ids.cat}`, { token: acme.owner })).status).toBe(404);
    expect((await auditEvents(aerie, acme, 'org.team.member_added', 'org.team.member_removed')).filter((e) => e.businessData.teamId === parent).map((e) => e.eventType))
      .toEqual(['org.team.member_added', 'org.team.member_removed']);
  });

  it('keeps automatic reporting lines in step with members and leads (member → lead, lead → parent lead)', async () => {
    const dept = await createTeam(aerie, acme, { Name: 'Dept', LeadConnectedId: acme.ids.ann });
    const team = await createTeam(aerie, acme, { Name: 'Squad', ParentTeamId: dept, LeadConnectedId: acme.ids.bob });
    await addMember(aerie, acme, team, acme.ids.cat);
    const auto = async () => (await aerie.sql("select source_id, target_id from teams.edges where org_id = ? and type = 'reporting' and derived_from_team_id in (?, ?) order by 1, 2", [acme.id, dept, team]))
      .map((r) => `${r.source_id}>${r.target_id}`).sort();
    expect(await auto()).toEqual([`${acme.ids.bob}>${acme.ids.ann}`, `${acme.ids.cat}>${acme.ids.bob}`].sort());
    // A new lead of the parent moves the sub-team lead's line; clearing the squad's lead drops both of its lines.
    await aerie.request('PUT', `/api/org/acme/teams/${dept}/lead`, { token: acme.owner, body: { LeadConnectedId: acme.ids.eve } });
    expect(await auto()).toEqual([`${acme.ids.bob}>${acme.ids.eve}`, `${acme.ids.cat}>${acme.ids.bob}`].sort());
    await aerie.request('PUT', `/api/org/acme/teams/${team}/lead`, { token: acme.owner, body: { LeadConnectedId: null } });
    expect(await auto()).toEqual([]);
    await aerie.request('PUT', `/api/org/acme/teams/${dept}/lead`, { token: acme.owner, body: { LeadConnectedId: null } });
  });

  it("moves the lead's automatic line to the new parent's lead when a team moves (PATCH ParentTeamId)", async () => {
    const from = await createTeam(aerie, acme, { Name: 'From', LeadConnectedId: acme.ids.ann });
    const to = await createTeam(aerie, acme, { Name: 'To', LeadConnectedId: acme.ids.eve });
    const team = await createTeam(aerie, acme, { Name: 'Mover', ParentTeamId: from, LeadConnectedId: acme.ids.cat });
    const lines = async () => (await aerie.sql('select source_id, target_id from teams.edges where derived_from_team_id = ?', [team])).map((r) => [r.source_id, r.target_id]);
    expect(await lines()).toEqual([[acme.ids.cat, acme.ids.ann]]);
    expect((await aerie.request('PATCH', `/api/org/acme/teams/${team}`, { token: acme.owner, body: { ParentTeamId: to } })).status).toBe(200);
    expect(await lines()).toEqual([[acme.ids.cat, acme.ids.eve]]);
    expect((await aerie.request('PATCH', `/api/org/acme/teams/${team}`, { token: acme.owner, body: { ParentTeamId: null } })).body.ParentTeamId).toBeNull();
    expect(await lines()).toEqual([]);
  });

  it('re-syncs only the automatic edges on a lead change: manual lines stay; emits reporting.team.lead_changed', async () => {
    const team = await createTeam(aerie, acme, { Name: 'Ops', LeadConnectedId: acme.ids.ann });
    expect((await addMember(aerie, acme, team, acme.ids.dan, 'add')).status).toBe(201); // dan reports to bob in Sales EU too
    expect((await relate(aerie, acme, acme.ids.dan, acme.ids.ann)).status).toBe(201); // the same pair, by hand
    expect((await relate(aerie, acme, acme.ids.dan, acme.ids.eve, 'reference')).status).toBe(201);
    const res = await aerie.request('PUT', `/api/org/acme/teams/${team}/lead`, { token: acme.owner, body: { LeadConnectedId: acme.ids.bob } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ TeamId: team, LeadConnectedId: acme.ids.bob, MemberCount: 1 });
    const rows = await aerie.sql('select source_id, target_id, type, derived_from_team_id from teams.edges where org_id = ? and source_id = ? order by type, target_id', [acme.id, acme.ids.dan]);
    expect(rows.filter((r) => r.type !== 'member_of')).toEqual(expect.arrayContaining([
      { source_id: acme.ids.dan, target_id: acme.ids.ann, type: 'reporting', derived_from_team_id: null },
      { source_id: acme.ids.dan, target_id: acme.ids.bob, type: 'reporting', derived_from_team_id: team },
      { source_id: acme.ids.dan, target_id: acme.ids.eve, type: 'reference', derived_from_team_id: null },
    ]));
    expect(rows.filter((r) => r.type === 'reporting' && r.derived_from_team_id === team)).toHaveLength(1);
    const events = (await auditEvents(aerie, acme, 'reporting.team.lead_changed')).filter((e) => e.businessData.teamId === team);
    expect(events.map((e) => e.businessData)).toEqual([
      expect.objectContaining({ previousLeadConnectedId: acme.ids.ann, leadConnectedId: acme.ids.bob, derivedAdded: 1, derivedRemoved: 1 }),
    ]);
    // The same lead again changes nothing and emits nothing.
    await aerie.request('PUT', `/api/org/acme/teams/${team}/lead`, { token: acme.owner, body: { LeadConnectedId: acme.ids.bob } });
    expect((await auditEvents(aerie, acme, 'reporting.team.lead_changed')).filter((e) => e.businessData.teamId === team)).toHaveLength(1);
    await aerie.request('DELETE', `/api/org/acme/relationships?sourceId=${acme.ids.dan}&targetId=${acme.ids.ann}&type=reporting`, { token: acme.owner });
    await aerie.request('DELETE', `/api/org/acme/teams/${team}/members/${acme.ids.dan}`, { token: acme.owner });
  });

  describe('a member who already reports to someone: needsResolution, then add / replace / none', () => {
    let team: string;
    let manual: string;
    beforeAll(async () => {
      const org = await orgWithPeople(aerie, acme.owner, 'resolve', ['lee', 'mia', 'ned', 'pia', 'rex', 'sam']);
      manual = org.ids.mia;
      Object.assign(resolveOrg, org);
      team = await createTeam(aerie, org, { Name: 'R&D', LeadConnectedId: org.ids.lee });
    });
    const resolveOrg = {} as PeopleOrg;

    it.each([
      ['add', 'ned', ['mia', 'lee@auto']],
      ['replace', 'pia', ['lee@auto']],
      ['none', 'rex', ['mia']],
    ])('Resolution %s for %s leaves the managers %j', async (resolution, who, expected) => {
      const org = resolveOrg;
      expect((await relate(aerie, org, org.ids[who], manual)).status).toBe(201);
      const ask = await addMember(aerie, org, team, org.ids[who]);
      expect(ask.status).toBe(200);
      expect(ask.body).toEqual({ needsResolution: true, existingManagers: [{ ConnectedIdId: manual, Name: 'mia@resolve.test', DerivedFromTeamId: null }] });
      expect(await aerie.sql("select count(*)::int as n from teams.edges where source_id = ? and type = 'member_of'", [org.ids[who]])).toEqual([{ n: 0 }]);
      const res = await addMember(aerie, org, team, org.ids[who], resolution);
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ needsResolution: false, removedManagers: resolution === 'replace' ? [manual] : [], member: { ReportsToLead: resolution !== 'none' } });
      const edges = (await reportingEdges(aerie, org)).filter((e) => e.startsWith(`${who}>`)).map((e) => e.slice(who.length + 1));
      expect(edges.sort()).toEqual([...expected].sort());
      const [event] = (await auditEvents(aerie, org, 'org.team.member_added')).filter((e) => e.businessData.connectedIdId === org.ids[who]);
      expect(event.businessData).toMatchObject({ teamId: team, resolution, reportsToLead: resolution !== 'none' });
    });

    it('keeps a member who joined with Resolution none off the lead after a lead change', async () => {
      const org = resolveOrg;
      await aerie.request('PUT', `/api/org/resolve/teams/${team}/lead`, { token: org.owner, body: { LeadConnectedId: org.ids.sam } });
      const edges = await reportingEdges(aerie, org);
      expect(edges.filter((e) => e.startsWith('rex>'))).toEqual(['rex>mia']);
      expect(edges.filter((e) => e.endsWith('>sam@auto')).sort()).toEqual(['ned>sam@auto', 'pia>sam@auto']);
      const listed = await aerie.request('GET', `/api/org/resolve/teams/${team}/members`, { token: org.owner });
      expect(listed.body.Members.map((m: { Email: string; ReportsToLead: boolean }) => [m.Email, m.ReportsToLead]))
        .toEqual([['ned@resolve.test', true], ['pia@resolve.test', true], ['rex@resolve.test', false]]);
    });
  });

  it('refuses a lead change that would close a reporting cycle (409 REPORTING_CYCLE), changing nothing', async () => {
    const team = await createTeam(aerie, acme, { Name: 'Cyclers', LeadConnectedId: acme.ids.cat });
    await addMember(aerie, acme, team, acme.ids.eve);
    expect((await relate(aerie, acme, acme.ids.dan, acme.ids.eve)).status).toBe(201); // dan reports to eve, eve to cat
    const res = await aerie.request('PUT', `/api/org/acme/teams/${team}/lead`, { token: acme.owner, body: { LeadConnectedId: acme.ids.dan } });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'REPORTING_CYCLE', path: [acme.ids.eve, acme.ids.dan, acme.ids.eve] });
    expect(await aerie.sql('select lead_connected_id from teams.teams where id = ?', [team])).toEqual([{ lead_connected_id: acme.ids.cat }]);
    expect(await aerie.sql('select target_id from teams.edges where derived_from_team_id = ?', [team])).toEqual([{ target_id: acme.ids.cat }]);
  });

  it('refuses a lead whose own automatic lines would form a cycle in one re-sync (the parent lead is a member)', async () => {
    const dept = await createTeam(aerie, acme, { Name: 'Loop dept', LeadConnectedId: acme.ids.eve });
    const team = await createTeam(aerie, acme, { Name: 'Loop team', ParentTeamId: dept });
    expect((await addMember(aerie, acme, team, acme.ids.eve, 'add')).status).toBe(201);
    const res = await aerie.request('PUT', `/api/org/acme/teams/${team}/lead`, { token: acme.owner, body: { LeadConnectedId: acme.ids.bob } });
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('REPORTING_CYCLE');
    expect([res.body.path[0], res.body.path.at(-1)]).toEqual([res.body.path[0], res.body.path[0]]);
    expect(await aerie.sql('select count(*)::int as n from teams.edges where derived_from_team_id = ?', [team])).toEqual([{ n: 0 }]);
    expect(await aerie.sql('select lead_connected_id from teams.teams where id = ?', [team])).toEqual([{ lead_connected_id: null }]);
  });

  it.each([
    ['GET', '/api/org/acme/teams'], ['POST', '/api/org/acme/teams', { Name: 'X' }], ['PATCH', '/api/org/acme/teams/TEAM', { Name: 'X' }],
    ['PUT', '/api/org/acme/teams/TEAM/lead', { LeadConnectedId: null }], ['GET', '/api/org/acme/teams/TEAM/members'],
    ['POST', '/api/org/acme/teams/TEAM/members', { ConnectedIdId: 'ANN' }], ['DELETE', '/api/org/acme/teams/TEAM/members/ANN'],
    ['GET', '/api/org/acme/reporting/graph'], ['POST', '/api/org/acme/relationships', { SourceConnectedId: 'ANN', TargetConnectedId: 'BOB', Type: 'reporting' }],
    ['DELETE', '/api/org/acme/relationships?sourceId=ANN&targetId=BOB&type=reporting'], ['GET', '/api/org/acme/board'], ['POST', '/api/org/acme/board'],
    ['POST', '/api/org/acme/board/members', { ConnectedIdId: 'ANN' }], ['POST', '/api/org/acme/board/members/ANN/remove', {}],
    ['PUT', '/api/org/acme/board/chairman', { LeadConnectedId: null }],
  ] as Array<[string, string, unknown?]>)("answers another organization's owner 404 on %s %s and changes nothing", async (method, path, body) => {
    const team = (await aerie.sql('select id from teams.teams where org_id = ? order by created_at limit 1', [acme.id]))[0].id;
    const fill = (x: string) => x.replace('TEAM', team).replaceAll('ANN', acme.ids.ann).replaceAll('BOB', acme.ids.bob);
    const before = await aerie.sql('select (select count(*)::int from teams.teams) as t, (select count(*)::int from teams.edges) as e');
    const res = await aerie.request(method, fill(path), { token: other.owner, body: body && JSON.parse(fill(JSON.stringify(body))) });
    expect(res.status).toBe(404);
    expect(await aerie.sql('select (select count(*)::int from teams.teams) as t, (select count(*)::int from teams.edges) as e')).toEqual(before);
  });

  it('lets a machine token with org.team.* scopes work and refuses one without (403 with required)', async () => {
    const { createKey, tokenFor } = await import('../../helpers/api-keys.ts');
    const org = { id: acme.id, slug: 'acme', owner: acme.owner };
    const token = await tokenFor(aerie, org, (await createKey(aerie, org, { scopes: ['org.team.create', 'org.team.list'] })).value);
    const created = await aerie.request('POST', '/api/org/acme/teams', { token, body: { Name: 'Robots' } });
    expect(created.status).toBe(201);
    const denied = await aerie.request('PUT', `/api/org/acme/teams/${created.body.TeamId}/lead`, { token, body: { LeadConnectedId: null } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.team.update' });
  });
});
