import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { isVisible, resolveVisibility } from '../../../plugins/audit/visibility.ts';
import { KernelAuthz, type AuthzService, type OrgContext, type Principal } from '../../../core/index.ts';

const principal: Principal = { type: 'account', id: 'me', accountId: 'me' };
const org = (role: 'Owner' | 'Admin' | 'Member'): OrgContext => ({ organization: { id: 'o', slug: 'acme', name: 'Acme', type: 'team' }, membership: { id: 'm', role } });
const grantsOf = (g: 'all' | string[]): AuthzService => new KernelAuthz(() => async () => g);
const ev = (eventType: string, actorId = 'someone') => ({ eventType, actor: { type: 'account', id: actorId } });
const SAMPLE = [ev('agent.hired'), ev('org.project.created'), ev('reporting.run'), ev('payment.charge'), ev('org.member.invited'), ev('x.own', 'me')];
const sys = (k: string) => `org.audit_event_log.list_system:system=${k}`;

describe('audit visibility: per-system grants map to event-type prefixes; payment.* owner only', () => {
  const table: Array<[role: 'Owner' | 'Admin' | 'Member', grants: 'all' | string[], visible: string[]]> = [
    ['Member', [sys('agent')], ['agent.hired', 'x.own']],
    ['Member', [sys('project_mgmt')], ['org.project.created', 'x.own']],
    ['Member', [sys('reporting'), sys('agent')], ['agent.hired', 'reporting.run', 'x.own']],
    ['Member', [sys('payment')], ['x.own']], // payment.* stays owner-only even with the grant
    ['Admin', 'all', ['agent.hired', 'org.member.invited', 'org.project.created', 'reporting.run', 'x.own']],
    ['Owner', 'all', ['agent.hired', 'org.member.invited', 'org.project.created', 'payment.charge', 'reporting.run', 'x.own']],
  ];
  it.each(table)('%s with %j sees %j under scope=all', async (role, grants, visible) => {
    const v = await resolveVisibility('all', principal, org(role), grantsOf(grants), async () => true);
    expect(SAMPLE.filter((e) => isVisible(e, v)).map((e) => e.eventType).sort()).toEqual(visible);
  });

  it('refuses scope=all to a member with only the default grant, and below Pro', async () => {
    await expect(resolveVisibility('all', principal, org('Member'), grantsOf(['org.audit_event_log.list:actor=self']), async () => true)).rejects.toMatchObject({ status: 403, code: 'PERMISSION_DENIED' });
    await expect(resolveVisibility('all', principal, org('Member'), grantsOf([sys('agent')]), async () => false)).rejects.toMatchObject({ status: 403, code: 'UPGRADE_REQUIRED', fields: { feature: 'feature.audit.view_all' } });
    await expect(resolveVisibility('all', principal, org('Owner'), grantsOf('all'), async () => false)).rejects.toMatchObject({ code: 'UPGRADE_REQUIRED' });
  });

  it('scope=mine is own events for everyone (payment.* still owner-only)', async () => {
    const mine = await resolveVisibility('mine', principal, org('Admin'), grantsOf('all'), async () => false);
    expect([ev('a.b', 'me'), ev('payment.x', 'me'), ev('a.b')].filter((e) => isVisible(e, mine)).map((e) => e.eventType)).toEqual(['a.b']);
  });
});
