import { describe, expect, it } from 'vitest';
import {
  formatScope,
  MAX_SCOPE_LENGTH,
  parseScope,
  ScopeSyntaxError,
  type ScopeConstraint,
} from '../../../core/authz/index.ts';
import { AerieError } from '../../../core/errors.ts';

const UUID = '123e4567-e89b-12d3-a456-426614174000';

describe('parseScope — valid scopes', () => {
  it.each<[string, string, string, string, string, boolean, ScopeConstraint[]]>([
    // text, base, namespace, resource, action, wildcard, constraints
    ['org.project.read', 'org.project.read', 'org', 'project', 'read', false, []],
    [`org.project.read:project=${UUID}`, 'org.project.read', 'org', 'project', 'read', false, [{ key: 'project', op: '=', value: UUID }]],
    ['org.audit_event_log.list:actor=self', 'org.audit_event_log.list', 'org', 'audit_event_log', 'list', false, [{ key: 'actor', op: '=', value: 'self' }]],
    ['org.audit_event_log.list_system:system=agent', 'org.audit_event_log.list_system', 'org', 'audit_event_log', 'list_system', false, [{ key: 'system', op: '=', value: 'agent' }]],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system', 'org', 'audit_event_log', 'list_system', false, [{ key: 'system', op: '!=', value: 'payment' }]],
    ['view.business', 'view.business', 'view', '', 'business', false, []],
    ['org.device_identity.device_binding.update', 'org.device_identity.device_binding.update', 'org', 'device_identity.device_binding', 'update', false, []],
    ['org.reporting_instance.approval_step.update', 'org.reporting_instance.approval_step.update', 'org', 'reporting_instance.approval_step', 'update', false, []],
    ['org.project.read:project=*', 'org.project.read', 'org', 'project', 'read', false, [{ key: 'project', op: '=', value: '*' }]],
    ['*', '*', '*', '', '*', true, []],
    ['org.*', 'org.*', 'org', '', '*', true, []],
    ['org.project.*', 'org.project.*', 'org', 'project', '*', true, []],
    ['org.project.*:project=P1', 'org.project.*', 'org', 'project', '*', true, [{ key: 'project', op: '=', value: 'P1' }]],
    ['a1.b_2.c3', 'a1.b_2.c3', 'a1', 'b_2', 'c3', false, []],
    // constraints come back sorted by key; values may hold '=', '*', '/', unicode
    ['x.y.z:zeta=1,Alpha=2,_k!=v', 'x.y.z', 'x', 'y', 'z', false, [
      { key: 'Alpha', op: '=', value: '2' }, { key: '_k', op: '!=', value: 'v' }, { key: 'zeta', op: '=', value: '1' },
    ]],
    ['x.y.z:path=a/b=c', 'x.y.z', 'x', 'y', 'z', false, [{ key: 'path', op: '=', value: 'a/b=c' }]],
    ['x.y.z:name=café', 'x.y.z', 'x', 'y', 'z', false, [{ key: 'name', op: '=', value: 'café' }]],
  ])('%s', (text, base, namespace, resource, action, wildcard, constraints) => {
    expect(parseScope(text)).toEqual({ base, namespace, resource, action, wildcard, constraints });
  });

  it('returns a frozen expression', () => {
    const expr = parseScope('org.project.read:project=P1');
    expect(Object.isFrozen(expr)).toBe(true);
    expect(Object.isFrozen(expr.constraints)).toBe(true);
  });
});

describe('parseScope — invalid scopes throw INVALID_SCOPE', () => {
  it.each<[string, string, RegExp]>([
    ['empty', '', /empty/],
    ['one segment', 'org', /namespace and an action/],
    ['leading dot', '.org.project.read', /empty segment/],
    ['trailing dot', 'org.project.', /empty segment/],
    ['double dot', 'org..read', /empty segment/],
    ['upper case segment', 'org.Project.read', /segment "Project"/],
    ['dash in segment', 'org.api-key.create', /segment "api-key"/],
    ['space in segment', 'org.project .read', /segment/],
    ['star inside a segment', 'org.proj*.read', /segment "proj\*"/],
    ['star not last', 'org.*.read', /segment "\*"/],
    ['star as namespace with more', '*.read', /segment "\*"/],
    ['colon without constraints', 'org.project.read:', /empty constraint/],
    ['empty constraint between commas', 'org.project.read:a=1,,b=2', /empty constraint/],
    ['trailing comma', 'org.project.read:a=1,', /empty constraint/],
    ['missing operator', 'org.project.read:project', /key=value/],
    ['missing key', 'org.project.read:=P1', /key=value/],
    ['key starting with digit', 'org.project.read:1project=P1', /key=value/],
    ['unsupported operator', 'org.project.read:project<P1', /key=value/],
    ['missing value', 'org.project.read:project=', /no value/],
    ['missing value after !=', 'org.project.read:project!=', /no value/],
    ['second colon', 'org.project.read:project=a:b', /forbidden character/],
    ['space in value', 'org.project.read:project=a b', /forbidden character/],
    ['tab in value', 'org.project.read:project=a\tb', /forbidden character/],
    ['duplicate key', 'org.project.read:project=A,project=B', /duplicate constraint key "project"/],
    ['duplicate key with other ops', 'x.y.z:system!=a,system=b', /duplicate constraint key "system"/],
    ['too long', `org.project.read:project=${'x'.repeat(MAX_SCOPE_LENGTH)}`, /longer than/],
  ])('%s: %j', (_label, text, reason) => {
    let thrown: unknown;
    try {
      parseScope(text);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ScopeSyntaxError);
    const err = thrown as ScopeSyntaxError;
    expect(err.code).toBe('INVALID_SCOPE');
    expect(ScopeSyntaxError.code).toBe('INVALID_SCOPE');
    expect(err).toBeInstanceOf(AerieError);
    expect(err.status).toBe(400);
    expect(err.expose).toBe(true);
    expect(err.scope).toBe(text);
    expect(err.fields).toEqual({ scope: text.slice(0, 100) });
    expect(err.reason).toMatch(reason);
  });

  it('rejects a non-string at run time', () => {
    expect(() => parseScope(42 as unknown as string)).toThrow(ScopeSyntaxError);
  });
});

describe('formatScope', () => {
  it.each([
    ['org.project.read', 'org.project.read'],
    ['org.project.read:project=P1', 'org.project.read:project=P1'],
    ['x.y.z:zeta=1,alpha!=2', 'x.y.z:alpha!=2,zeta=1'],
    ['org.*:b=2,a=1,c=3', 'org.*:a=1,b=2,c=3'],
    ['*', '*'],
  ])('%s → %s', (text, canonical) => {
    expect(formatScope(parseScope(text))).toBe(canonical);
    // canonical text is a fixed point
    expect(formatScope(parseScope(canonical))).toBe(canonical);
  });

  it('sorts constraints of a hand-built expression', () => {
    const expr = {
      base: 'a.b.c', namespace: 'a', resource: 'b', action: 'c', wildcard: false,
      constraints: [{ key: 'z', op: '=' as const, value: '1' }, { key: 'm', op: '!=' as const, value: '2' }],
    };
    expect(formatScope(expr)).toBe('a.b.c:m!=2,z=1');
  });
});
