import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { teamsRefs, type ReportingLines } from '../../../plugins/teams/api.ts';
import { addMember, createTeam, orgWithPeople, relate, reportingEdges, type PeopleOrg } from './team-helpers.ts';

describe('reporting: graph, relationships and cycles (docs/api/teams.md)', () => {
  let aerie: TestAerie;
  let acme: PeopleOrg;
  let other: PeopleOrg;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'acme', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k', 'l']);
    other = await orgWithPeople(aerie, await aerie.signIn('oscar@owner.test'), 'other', ['z', 'y']);
  });
  afterAll(() => aerie?.close());

  it('adds a reporting line (201 edge) and a dotted line, audited, and refuses the same edge twice (409)', async () => {
    const res = await relate(aerie, acme, acme.ids.a, acme.ids.b);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ SourceConnectedId: acme.ids.a, TargetConnectedId: acme.ids.b, Type: 'reporting', DerivedFromTeamId: null });
    expect((await relate(aerie, acme, acme.ids.a, acme.ids.c, 'reference')).status).toBe(201);
    const twice = await relate(aerie, acme, acme.ids.a, acme.ids.b);
    expect(twice.status).toBe(409);
    expect(twice.body.error).toBe('RELATIONSHIP_EXISTS');
    expect((await auditEvents(aerie, acme, 'reporting.relationship.created')).map((e) => e.businessData)).toEqual([
      { sourceConnectedId: acme.ids.a, targetConnectedId: acme.ids.b, type: 'reporting' },
      { sourceConnectedId: acme.ids.a, targetConnectedId: acme.ids.c, type: 'reference' },
    ]);
  });

  it.each([
    ['member_of (teams only)', { Type: 'member_of' }, 400, 'VALIDATION_FAILED'],
    ['an unknown type', { Type: 'boss' }, 400, 'VALIDATION_FAILED'],
    ['a person with themselves', { TargetConnectedId: 'SELF' }, 400, 'VALIDATION_FAILED'],
    ['a malformed id', { SourceConnectedId: 'x' }, 400, 'VALIDATION_FAILED'],
    ["another organization's source", { SourceConnectedId: 'FOREIGN' }, 404, 'MEMBER_NOT_FOUND'],
    ["another organization's target", { TargetConnectedId: 'FOREIGN' }, 404, 'MEMBER_NOT_FOUND'],
  ])('refuses %s (%i %s) and writes nothing', async (_label, patch, status, code) => {
    const body: Record<string, string> = { SourceConnectedId: acme.ids.d, TargetConnectedId: acme.ids.e, Type: 'reporting', ...patch };
    for (const [k, v] of Object.entries(body)) if (v === 'SELF') body[k] = acme.ids.d; else if (v === 'FOREIGN') body[k] = other.ids.z;
    const before = await aerie.sql('select count(*)::int as n from teams.edges');
    const res = await aerie.request('POST', '/api/org/acme/relationships', { token: acme.owner, body });
    expect(res.status).toBe(status);
    expect(res.body.error).toBe(code);
    expect(await aerie.sql('select count(*)::int as n from teams.edges')).toEqual(before);
  });

  it.each([
    ['a two-person cycle', [['f', 'g']], ['g', 'f'], ['g', 'f', 'g']],
    ['a longer cycle, shortest path named', [['h', 'i'], ['i', 'j'], ['j', 'k'], ['h', 'k']], ['k', 'h'], ['k', 'h', 'k']],
    ['a three-step cycle', [['c', 'd'], ['d', 'e']], ['e', 'c'], ['e', 'c', 'd', 'e']],
  ])('refuses %s (409 REPORTING_CYCLE with the path) and writes nothing', async (_label, existing, [s, t], path) => {
    for (const [x, y] of existing) expect((await relate(aerie, acme, acme.ids[x], acme.ids[y])).status).toBe(201);
    const before = await reportingEdges(aerie, acme);
    const res = await relate(aerie, acme, acme.ids[s], acme.ids[t]);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error: 'REPORTING_CYCLE', path: path.map((n) => acme.ids[n]) });
    expect(await reportingEdges(aerie, acme)).toEqual(before);
    // A dotted line may go "up" freely: it is not a reporting line.
    expect((await relate(aerie, acme, acme.ids[s], acme.ids[t], 'reference')).status).toBe(201);
  });

  it('lets only one of two concurrent inserts that together would close a cycle through', async () => {
    const org = await orgWithPeople(aerie, acme.owner, 'race', ['p1', 'p2', 'p3', 'q1', 'q2', 'r1', 'r2', 's1', 's2']);
    expect((await relate(aerie, org, org.ids.p1, org.ids.p2)).status).toBe(201);
    const races: Array<[string, string][]> = [
      [['p2', 'p3'], ['p3', 'p1']], // closes p1 → p2 → p3 → p1 only together
      [['q1', 'q2'], ['q2', 'q1']],
      [['r1', 'r2'], ['r2', 'r1']],
      [['s1', 's2'], ['s2', 's1']],
    ];
    const answers = await Promise.all(races.flat().map(([x, y]) => relate(aerie, org, org.ids[x], org.ids[y])));
    for (let i = 0; i < races.length; i++) {
      const pair = answers.slice(2 * i, 2 * i + 2).map((r) => r.status).sort();
      expect(pair, JSON.stringify(races[i])).toEqual([201, 409]);
    }
    expect(answers.filter((r) => r.status === 409).every((r) => r.body.error === 'REPORTING_CYCLE')).toBe(true);
    // No cycle in what was stored: every walk up the stored edges ends.
    const edges = await aerie.sql("select source_id, target_id from teams.edges where org_id = ? and type = 'reporting'", [org.id]);
    const up = new Map(edges.map((e) => [e.source_id, e.target_id]));
    for (const start of up.keys()) {
      const seen = new Set<string>();
      for (let at: string | undefined = start; at; at = up.get(at)) {
        expect(seen.has(at)).toBe(false);
        seen.add(at);
      }
    }
  });

  it('deletes a manual edge (204, audited); 404 for none; 409 RELATIONSHIP_DERIVED for an automatic one', async () => {
    const del = (s: string, t: string, type = 'reporting') =>
      aerie.request('DELETE', `/api/org/acme/relationships?sourceId=${s}&targetId=${t}&type=${type}`, { token: acme.owner });
    const res = await del(acme.ids.a, acme.ids.b);
    expect(res.status).toBe(204);
    expect((await del(acme.ids.a, acme.ids.b)).status).toBe(404);
    expect((await auditEvents(aerie, acme, 'reporting.relationship.deleted')).map((e) => e.businessData)).toEqual([
      { sourceConnectedId: acme.ids.a, targetConnectedId: acme.ids.b, type: 'reporting' },
    ]);
    const team = await createTeam(aerie, acme, { Name: 'Auto', LeadConnectedId: acme.ids.l });
    expect((await addMember(aerie, acme, team, acme.ids.a)).status).toBe(201);
    const derived = await del(acme.ids.a, acme.ids.l);
    expect(derived.status).toBe(409);
    expect(derived.body).toMatchObject({ error: 'RELATIONSHIP_DERIVED', teamIds: [team] });
    expect((await aerie.request('DELETE', `/api/org/acme/relationships?sourceId=${acme.ids.a}&targetId=${acme.ids.l}&type=member_of`, { token: acme.owner })).status).toBe(400);
    // Another organization's edge is not found through acme, and is still there.
    expect((await relate(aerie, other, other.ids.z, other.ids.y)).status).toBe(201);
    expect((await del(other.ids.z, other.ids.y)).status).toBe(404);
    expect(await aerie.sql("select count(*)::int as n from teams.edges where org_id = ? and type = 'reporting'", [other.id])).toEqual([{ n: 1 }]);
  });

  it("answers the graph: people, teams and all three edge types, never another organization's", async () => {
    const res = await aerie.request('GET', '/api/org/acme/reporting/graph', { token: acme.owner });
    expect(res.status).toBe(200);
    expect(res.body.People.map((p: { ConnectedIdId: string }) => p.ConnectedIdId)).toEqual(expect.arrayContaining([acme.ownerId, ...Object.values(acme.ids)]));
    expect(res.body.People).toHaveLength(13);
    expect(new Set(res.body.Edges.map((e: { Type: string }) => e.Type))).toEqual(new Set(['member_of', 'reporting', 'reference']));
    expect(res.body.Teams.map((t: { Name: string }) => t.Name)).toEqual(['Auto']);
    const ids = new Set([...Object.values(acme.ids), acme.ownerId, ...res.body.Teams.map((t: { TeamId: string }) => t.TeamId)]);
    for (const e of res.body.Edges) expect(ids.has(e.SourceConnectedId) && ids.has(e.TargetConnectedId)).toBe(true);
    const theirs = await aerie.request('GET', '/api/org/other/reporting/graph', { token: other.owner });
    expect(theirs.body.Edges).toEqual([expect.objectContaining({ SourceConnectedId: other.ids.z, TargetConnectedId: other.ids.y })]);
    expect((await aerie.request('GET', '/api/org/other/reporting/graph', { token: acme.owner })).status).toBe(404);
  });

  it('leaves people who left out of the graph and the chain, but walks on through them', async () => {
    const org = await orgWithPeople(aerie, acme.owner, 'chain', ['emp', 'mgr', 'dir', 'ceo', 'alt']);
    for (const [s, t] of [['emp', 'mgr'], ['mgr', 'dir'], ['dir', 'ceo'], ['emp', 'alt'], ['alt', 'ceo']]) {
      expect((await relate(aerie, org, org.ids[s], org.ids[t])).status).toBe(201);
    }
    const lines = aerie.kernel.container.resolve<ReportingLines>(teamsRefs.reporting.id);
    const names = (chain: Array<{ connectedIdId: string; depth: number }>) =>
      chain.map((m) => `${Object.entries(org.ids).find(([, id]) => id === m.connectedIdId)![0]}:${m.depth}`);
    expect(names(await lines.managersChain(org.id, org.ids.emp))).toEqual(expect.arrayContaining(['mgr:1', 'alt:1', 'dir:2', 'ceo:2']));
    expect((await lines.managersChain(org.id, org.ids.emp)).map((m) => m.depth)).toEqual([1, 1, 2, 2]);
    expect(await lines.managersChain(org.id, org.ids.ceo)).toEqual([]);
    expect(await lines.managersChain(acme.id, org.ids.emp)).toEqual([]);

    expect((await aerie.request('POST', `/api/org/chain/members/${org.ids.mgr}/revoke`, { token: org.owner })).status).toBe(200);
    expect(names(await lines.managersChain(org.id, org.ids.emp))).toEqual(expect.arrayContaining(['alt:1', 'dir:2', 'ceo:2']));
    expect(await lines.managersChain(org.id, org.ids.emp)).toHaveLength(3);
    const graph = await aerie.request('GET', '/api/org/chain/reporting/graph', { token: org.owner });
    expect(graph.body.People.map((p: { ConnectedIdId: string }) => p.ConnectedIdId)).not.toContain(org.ids.mgr);
    expect(graph.body.Edges.some((e: { SourceConnectedId: string; TargetConnectedId: string }) => [e.SourceConnectedId, e.TargetConnectedId].includes(org.ids.mgr))).toBe(false);
  });
});
