import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { KernelAuthz, type GrantsProvider, type OrgContext, type Principal } from '../../../core/index.ts';

const org = (role?: 'Owner' | 'Admin' | 'Member'): OrgContext => ({
  organization: { id: 'o1', slug: 'acme', name: 'Acme', type: 'team' },
  ...(role ? { membership: { id: 'm1', role } } : {}),
});
const account: Principal = { type: 'account', id: 'a1', accountId: 'a1' };
const token = (scopes: string[]): Principal => ({ type: 'machine', id: 't1', scopes });
/** The orgs plugin's rule: Owner and Admin hold everything, other members the default grant. */
const byRole: GrantsProvider = async (_p, o) => (o.membership?.role === 'Owner' || o.membership?.role === 'Admin' ? 'all' : ['org.audit_event_log.list:actor=self', 'org.project.read:project=p1']);

describe('core.authz: what a principal holds in an organization', () => {
  const table: Array<[what: string, principal: Principal, context: OrgContext, provider: GrantsProvider | undefined, scope: string, holds: boolean]> = [
    ['the Owner, everything', account, org('Owner'), byRole, 'org.api_key.create', true],
    ['an Admin, everything', account, org('Admin'), byRole, 'org.member.delete', true],
    ['a member, a granted scope', account, org('Member'), byRole, 'org.project.read:project=p1', true],
    ['a member, the same scope on another project', account, org('Member'), byRole, 'org.project.read:project=p2', false],
    ['a member, an ungranted scope', account, org('Member'), byRole, 'org.api_key.create', false],
    ['a token, its own scope (the provider is not asked)', token(['org.api_key.list']), org(), byRole, 'org.api_key.list', true],
    ['a token, not what the provider would give a member', token(['org.api_key.list']), org(), byRole, 'org.project.read:project=p1', false],
    ['a token with a wildcard', token(['org.*']), org(), byRole, 'org.project.read:project=p9', true],
    ['an account without a grants provider, nothing', account, org('Owner'), undefined, 'org.api_key.list', false],
  ];
  it.each(table)('%s', async (_what, principal, context, provider, scope, holds) => {
    const authz = new KernelAuthz(() => provider);
    expect(await authz.holds(principal, context, scope)).toBe(holds);
    const refused = authz.require(principal, context, scope);
    if (holds) await expect(refused).resolves.toBeUndefined();
    else await expect(refused).rejects.toMatchObject({ status: 403, code: 'PERMISSION_DENIED', fields: { required: scope } });
  });

  it('applies actor=self with the caller\'s context', async () => {
    const authz = new KernelAuthz(() => byRole);
    expect(await authz.holds(account, org('Member'), 'org.audit_event_log.list', { principalId: 'a1', actorId: 'a1' })).toBe(true);
    expect(await authz.holds(account, org('Member'), 'org.audit_event_log.list', { principalId: 'a1', actorId: 'a2' })).toBe(false);
  });

  it('reads the provider at each call (plugins contribute it after the kernel made the service)', async () => {
    let provider: GrantsProvider | undefined;
    const authz = new KernelAuthz(() => provider);
    expect(await authz.holds(account, org('Owner'), 'org.api_key.list')).toBe(false);
    provider = byRole;
    expect(await authz.holds(account, org('Owner'), 'org.api_key.list')).toBe(true);
  });

  it('builds one permission set per grants array, and refuses a malformed scope', async () => {
    const authz = new KernelAuthz(() => undefined);
    const grants = Object.freeze(['org.project.read']) as string[];
    expect(authz.setOf(grants)).toBe(authz.setOf(grants));
    expect(authz.setOf([...grants])).not.toBe(authz.setOf(grants));
    await expect(authz.holds(token(['org.*']), org(), 'not a scope!')).rejects.toThrow();
  });
});
