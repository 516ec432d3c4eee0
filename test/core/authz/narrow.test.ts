import { describe, expect, it } from 'vitest';
import { narrowScopes, PermissionSet, ScopeSyntaxError } from '../../../core/authz/index.ts';

describe('narrowScopes — a request may only narrow what is held', () => {
  it.each<[string, string[], string[], string[], string[]]>([
    // label, held, requested, granted, refused
    ['exact subset', ['org.project.read', 'org.project.list'], ['org.project.read'], ['org.project.read'], []],
    ['one refused', ['org.project.read'], ['org.project.read', 'org.role.assign'], ['org.project.read'], ['org.role.assign']],
    ['constrain an unconstrained grant', ['org.project.read'], ['org.project.read:project=P1'], ['org.project.read:project=P1'], []],
    ['widen a constrained grant', ['org.project.read:project=P1'], ['org.project.read'], [], ['org.project.read']],
    ['switch to another id', ['org.project.read:project=P1'], ['org.project.read:project=P2'], [], ['org.project.read:project=P2']],
    ['wildcard grants below it', ['org.project.*'], ['org.project.read', 'org.project.update:project=P1'], ['org.project.read', 'org.project.update:project=P1'], []],
    ['narrower wildcard', ['org.*'], ['org.project.*'], ['org.project.*'], []],
    ['wider wildcard refused', ['org.project.*'], ['org.*', '*'], [], ['org.*', '*']],
    ['wildcard not from a plain grant', ['org.project.read'], ['org.project.*'], [], ['org.project.*']],
    ['unfilled held grants nothing', ['org.project.read:project=*'], ['org.project.read:project=P1'], [], ['org.project.read:project=P1']],
    ['!= narrowed to one value', ['org.audit_event_log.list_system:system!=payment'], ['org.audit_event_log.list_system:system=agent', 'org.audit_event_log.list_system:system=payment'], ['org.audit_event_log.list_system:system=agent'], ['org.audit_event_log.list_system:system=payment']],
    ['malformed request refused, not thrown', ['*'], ['org', 'org.project.read:'], [], ['org', 'org.project.read:']],
    ['canonical granted, duplicates merged', ['x.y.z'], ['x.y.z:b=2,a=1', 'x.y.z:a=1,b=2'], ['x.y.z:a=1,b=2'], []],
    ['nothing held', [], ['view.business'], [], ['view.business']],
    ['nothing requested', ['*'], [], [], []],
  ])('%s', (_label, held, requested, granted, refused) => {
    expect(narrowScopes(held, requested)).toEqual({ granted, refused });
  });

  it('accepts a PermissionSet as the held side', () => {
    expect(narrowScopes(new PermissionSet(['org.*']), ['org.project.read', 'view.business'])).toEqual({
      granted: ['org.project.read'],
      refused: ['view.business'],
    });
  });

  it('throws INVALID_SCOPE on a malformed held scope', () => {
    expect(() => narrowScopes(['org.'], ['org.project.read'])).toThrow(ScopeSyntaxError);
  });
});
