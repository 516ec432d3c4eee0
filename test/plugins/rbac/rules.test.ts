import 'reflect-metadata';
import { describe, expect, it } from 'vitest';
import { membershipTypeOf } from '../../../plugins/rbac/membership-type.ts';
import { compileTemplates, templateCeiling, variablesKey } from '../../../plugins/rbac/role-compile.ts';
import { isDirectorRoleId, presetRoleId, uuidV5 } from '../../../plugins/rbac/presets.ts';
import { ScopeCatalog } from '../../../plugins/rbac/scope-catalog.ts';
import { parseScope } from '../../../core/authz/index.ts';
import { isCompanyEmail } from '../../../plugins/members/company-email.ts';

describe('rbac and members: pure rules', () => {
  it.each([
    [[], 'Member'],
    [['ORG_GUEST'], 'Guest'],
    [['PROJECT_GUEST', 'MEETING_GUEST'], 'Guest'],
    [['ORG_FREELANCER'], 'Freelancer'],
    [['PROJECT_GUEST', 'ORG_FREELANCER'], 'Freelancer'],
    [['ORG_FREELANCER', 'AUDITOR'], 'Member'],
    [['AUDITOR'], 'Member'],
    [['ORG_GUEST', 'ORG_DIRECTOR'], 'Director'],
    [['REPRESENTATIVE_DIRECTOR', 'AUDITOR'], 'Director'],
  ])('membership type of %j is %s', (keys, type) => {
    expect(membershipTypeOf(keys)).toBe(type);
  });

  it('compiles templates: filled, unfilled (*), literal constraints kept, duplicates merged', () => {
    const t = ['org.project.read:project={project}', 'org.project.list:project={project}', 'org.audit_event_log.list:actor=self', 'org.project.read:project={project}'];
    expect(compileTemplates(t, { project: 'P1' })).toEqual(['org.project.read:project=P1', 'org.project.list:project=P1', 'org.audit_event_log.list:actor=self']);
    expect(compileTemplates(t, {})).toEqual(['org.project.read:project=*', 'org.project.list:project=*', 'org.audit_event_log.list:actor=self']);
    expect(templateCeiling('org.project.read:project={project},team=A')).toBe('org.project.read:team=A');
    expect(variablesKey({ b: '2', a: '1' })).toBe(variablesKey({ a: '1', b: '2' }));
  });

  it('derives preset ids (UUID v5) per organization and role key', () => {
    const id = presetRoleId('org-1', 'ORG_DIRECTOR');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(presetRoleId('org-1', 'ORG_DIRECTOR')).toBe(id);
    expect(presetRoleId('org-2', 'ORG_DIRECTOR')).not.toBe(id);
    expect(isDirectorRoleId('org-1', id)).toBe(true);
    expect(isDirectorRoleId('org-2', id)).toBe(false);
    expect(isDirectorRoleId('org-1', presetRoleId('org-1', 'ORG_GUEST'))).toBe(false);
    expect(uuidV5('a')).not.toBe(uuidV5('b'));
  });

  it('builds the catalog from manifests and resolves bases by its rules', () => {
    const catalog = new ScopeCatalog([
      { id: 'p', permissions: [{ scope: 'org.project.read', description: '' }, { scope: 'org.rocket.fly', description: '' }, { scope: 'view.business', description: '' }] },
    ]);
    expect(catalog.list().map((e) => e.scope)).toEqual(['org.project.read', 'view.business']);
    expect(catalog.skipped).toEqual(['p: org.rocket.fly (resource not on the org whitelist)']);
    const resolve = (s: string) => { try { return catalog.resolveBase(parseScope(s), s); } catch (e) { return (e as { code: string }).code; } };
    expect(resolve('org.project.read:project=P1')).toBe('org.project.read');
    expect(resolve('org.project.*')).toBe('org.project.*');
    expect(resolve('view.*')).toBe('view.*');
    expect(resolve('org.project.list')).toBe('UNKNOWN_SCOPE');
    expect(resolve('org.rocket.fly')).toBe('SCOPE_NOT_ALLOWED');
    expect(resolve('org.*')).toBe('SCOPE_NOT_ALLOWED');
    expect(resolve('*')).toBe('SCOPE_NOT_ALLOWED');
  });

  it.each([
    ['ann@acme.com', ['acme.com'], true],
    ['ANN@ACME.COM', ['acme.com'], true],
    ['ann@eu.acme.com', ['acme.com'], true],
    ['ann@notacme.com', ['acme.com'], false],
    ['ann@acme.com.evil.io', ['acme.com'], false],
    ['ann@gmail.com', ['acme.com'], false],
    ['ann@acme.com', [], false],
    ['ann@acme.com', [''], false],
  ] as const)('company email %s with verified %j: %s', (email, domains, ok) => {
    expect(isCompanyEmail(email, domains)).toBe(ok);
  });
});
