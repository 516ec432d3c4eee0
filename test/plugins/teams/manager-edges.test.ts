import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { invitationToken, invite, roleId } from '../../helpers/org-members.ts';
import { teamsRefs, type ReportingLines } from '../../../plugins/teams/api.ts';
import { orgWithPeople, reportingEdges, type PeopleOrg } from './team-helpers.ts';

describe('reporting: the manager set on an invitation or a member (docs/api/teams.md "A manager set on a member")', () => {
  let aerie: TestAerie;
  let org: PeopleOrg;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    org = await orgWithPeople(aerie, await aerie.signIn('olga@owner.test'), 'managed', ['boss', 'peer']);
  });
  afterAll(() => aerie?.close());

  const patch = (id: string, ReportingManagerId: string | null) =>
    aerie.request('PATCH', `/api/org/managed/members/${id}`, { token: org.owner, body: { ReportingManagerId } });

  it('makes the manager chosen at invitation a manual reporting edge when the invitation is accepted', async () => {
    const RoleId = await roleId(aerie, org.owner, org.slug, 'ORG_FREELANCER');
    expect((await invite(aerie, org.owner, org.slug, { Email: 'newbie@managed.test', RoleId, ReportingManagerId: org.ids.boss })).status).toBe(201);
    expect(await reportingEdges(aerie, org)).toEqual([]);
    const token = await aerie.signIn('newbie@managed.test');
    const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token, body: { Token: invitationToken(aerie, 'newbie@managed.test') } });
    expect(accepted.status).toBe(200);
    org.ids.newbie = accepted.body.Member.ConnectedIdId;
    expect(await reportingEdges(aerie, org)).toEqual(['newbie>boss']);
    const lines = aerie.kernel.container.resolve<ReportingLines>(teamsRefs.reporting.id);
    expect(await lines.managersChain(org.id, org.ids.newbie)).toEqual([{ connectedIdId: org.ids.boss, depth: 1 }]);
  });

  it('moves the edge when the member\'s manager changes, and removes it when the manager is cleared', async () => {
    expect((await patch(org.ids.newbie, org.ids.peer)).status).toBe(200);
    expect(await reportingEdges(aerie, org)).toEqual(['newbie>peer']);
    expect((await patch(org.ids.newbie, org.ids.peer)).status).toBe(200);
    expect(await reportingEdges(aerie, org)).toEqual(['newbie>peer']);
  });

  it('refuses a manager that would close a reporting cycle (409 REPORTING_CYCLE) and changes neither profile nor graph', async () => {
    const cycle = await patch(org.ids.peer, org.ids.newbie);
    expect(cycle.status).toBe(409);
    expect(cycle.body).toMatchObject({ error: 'REPORTING_CYCLE', path: [org.ids.peer, org.ids.newbie, org.ids.peer] });
    const members = (await aerie.request('GET', '/api/org/managed/members', { token: org.owner })).body.Members as Array<{ ConnectedIdId: string; ReportingManagerId: string | null }>;
    expect(members.find((m) => m.ConnectedIdId === org.ids.peer)?.ReportingManagerId).toBeNull();
    expect(await reportingEdges(aerie, org)).toEqual(['newbie>peer']);
    expect((await auditEvents(aerie, org, 'org.member.updated')).filter((e) => e.businessData.connectedIdId === org.ids.peer)).toEqual([]);
  });

  it('audits each edge change with via member_profile', async () => {
    expect((await patch(org.ids.newbie, null)).status).toBe(200);
    expect(await reportingEdges(aerie, org)).toEqual([]);
    const edge = (target: string) => ({ sourceConnectedId: org.ids.newbie, targetConnectedId: org.ids[target], type: 'reporting', via: 'member_profile' });
    const audited = async (type: string) => (await auditEvents(aerie, org, type)).map((e) => e.businessData);
    expect(await audited('reporting.relationship.created')).toEqual([edge('boss'), edge('peer')]);
    expect(await audited('reporting.relationship.deleted')).toEqual([edge('boss'), edge('peer')]);
  });
});
