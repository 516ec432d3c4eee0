import { describe, expect, it } from 'vitest';
import { scopeGrants, scopeReaches, ScopeSyntaxError, type ScopeContext } from '../../../core/authz/index.ts';

type Row = [held: string, required: string, expected: boolean];

const P1 = '123e4567-e89b-12d3-a456-426614174001';
const P2 = '123e4567-e89b-12d3-a456-426614174002';

/** Context-free rows `[held, required, expected]`, one table per rule. */
const GRANT_TABLES: Record<string, Row[]> = {
  'bases and constraints': [
    ['org.project.read', 'org.project.read', true],
    ['org.project.read', 'org.project.list', false],
    ['org.project.read', 'org.meeting.read', false],
    ['org.project.read', 'org.project.read.extra', false],
    ['org.project.read.extra', 'org.project.read', false],
    ['view.business', 'view.business', true],
    ['org.device_identity.device_binding.update', 'org.device_identity.device_binding.update', true],
    ['org.device_identity.update', 'org.device_identity.device_binding.update', false],
    // unconstrained held grants constrained required of the same base, never the reverse
    ['org.project.read', `org.project.read:project=${P1}`, true],
    ['org.project.read', 'org.project.read:project=P1,team=T', true],
    ['org.project.read:project=P1', 'org.project.read', false],
    // required may carry extra keys the held scope does not constrain
    ['org.project.read:project=P1', 'org.project.read:project=P1,team=T', true],
    ['org.project.read:project=P1,team=T', 'org.project.read:project=P1', false],
    ['org.project.read:project=P1,team=T', 'org.project.read:team=T,project=P1', true],
    ['org.project.read:project=P1,team=T', 'org.project.read:project=P1,team=U', false],
    // values are compared exactly
    ['org.project.read:project=P1', 'org.project.read:project=p1', false],
    // held `=` is not satisfied by a required `!=`
    ['org.project.read:project=P1', 'org.project.read:project!=P2', false],
  ],
  'guest roles compile to constrained scopes': [
    // PROJECT_GUEST with its variable unfilled grants nothing
    ['org.project.read:project=*', `org.project.read:project=${P1}`, false],
    ['org.project.read:project=*', 'org.project.read', false],
    ['org.project.read:project=*', 'org.project.read:project=*', false],
    ['org.project.list:project=*', 'org.project.list:project=*', false],
    ['org.meeting.read:meeting=*', 'org.meeting.read:meeting=M1', false],
    // PROJECT_GUEST with project P1
    [`org.project.read:project=${P1}`, `org.project.read:project=${P1}`, true],
    [`org.project.list:project=${P1}`, `org.project.list:project=${P1}`, true],
    [`org.project.read:project=${P1}`, `org.project.read:project=${P2}`, false],
    [`org.project.read:project=${P1}`, 'org.project.read', false],
    [`org.project.read:project=${P1}`, `org.project.update:project=${P1}`, false],
    [`org.project.read:project=${P1}`, 'org.project.read:project=*', false],
    // MEETING_GUEST
    ['org.meeting.read:meeting=M1', 'org.meeting.read:meeting=M1', true],
    ['org.meeting.read:meeting=M1', 'org.meeting.read:meeting=M2', false],
    ['org.meeting.read:meeting=M1', 'org.project.read:meeting=M1', false],
    // ORG_GUEST is unscoped: an unconstrained grant covers every value, even an unfilled one
    ['org.project.read', 'org.project.read:project=*', true],
  ],
  'wildcards (dot boundary)': [
    ['*', 'org.project.read', true],
    ['*', 'view.business', true],
    ['*', 'org.project.read:project=P1', true],
    ['*', 'org.*', true],
    ['*', '*', true],
    ['org.*', 'org.project.read', true],
    ['org.*', 'org.device_identity.device_binding.update', true],
    ['org.*', 'org.project.*', true],
    ['org.*', 'org.*', true],
    ['org.*', '*', false],
    ['org.*', 'view.business', false],
    ['org.*', 'organization.project.read', false],
    ['org.project.*', 'org.project.read', true],
    ['org.project.*', 'org.project.read:project=P1', true],
    ['org.project.*', 'org.project.member.add', true],
    ['org.project.*', 'org.projects.read', false],
    ['org.project.*', 'org.project', false],
    ['org.project.*', 'org.meeting.read', false],
    ['org.project.*', 'org.*', false],
    ['org.project.read', 'org.project.*', false],
    ['org.device_identity.*', 'org.device_identity.device_binding.read', true],
    ['org.device_identity.device_binding.*', 'org.device_identity.update', false],
    // constrained wildcard: every action on one project
    ['org.project.*:project=P1', 'org.project.update:project=P1', true],
    ['org.project.*:project=P1', 'org.project.update:project=P2', false],
    ['org.project.*:project=P1', 'org.project.update', false],
    ['org.project.*:project=*', 'org.project.update:project=P1', false],
  ],
  'operator !=': [
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system=agent', true],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system=reporting', true],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system=payment', false],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system', false],
    // a required `!=` is granted only by the same exclusion (or an unconstrained grant)
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system!=payment', true],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system!=agent', false],
    ['org.audit_event_log.list_system', 'org.audit_event_log.list_system:system!=payment', true],
    ['org.audit_event_log.list_system:system=agent', 'org.audit_event_log.list_system:system!=payment', false],
    ['org.audit_event_log.list_system:system!=payment', 'org.audit_event_log.list_system:system=*', false],
    ['org.audit_event_log.list_system:system!=*', 'org.audit_event_log.list_system:system=agent', false],
    // per-system `=` grants
    ['org.audit_event_log.list_system:system=agent', 'org.audit_event_log.list_system:system=agent', true],
    ['org.audit_event_log.list_system:system=agent', 'org.audit_event_log.list_system:system=payment', false],
  ],
};

describe.each(Object.entries(GRANT_TABLES))('scopeGrants — %s', (_rule, rows) => {
  it.each(rows)('%s grants %s → %s', (held, required, expected) => {
    expect(scopeGrants(held, required)).toBe(expected);
  });
});

describe('scopeGrants — actor=self', () => {
  const SELF = 'org.audit_event_log.list:actor=self';
  const me: ScopeContext = { principalId: 'U1' };
  it.each<[string, string, ScopeContext | undefined, boolean]>([
    [SELF, 'org.audit_event_log.list:actor=self', undefined, true],
    [SELF, 'org.audit_event_log.list:actor=self', me, true],
    [SELF, 'org.audit_event_log.list:actor=U1', me, true],
    [SELF, 'org.audit_event_log.list:actor=U2', me, false],
    [SELF, 'org.audit_event_log.list:actor=U1', undefined, false],
    [SELF, 'org.audit_event_log.list', undefined, false],
    [SELF, 'org.audit_event_log.list', me, false],
    // the context's actorId stands in for a missing required `actor`
    [SELF, 'org.audit_event_log.list', { principalId: 'U1', actorId: 'U1' }, true],
    [SELF, 'org.audit_event_log.list', { principalId: 'U1', actorId: 'U2' }, false],
    [SELF, 'org.audit_event_log.list', { actorId: 'U1' }, false],
    [SELF, 'org.audit_event_log.list', { actorId: 'self' }, true],
    // an explicit required actor wins over the context's actorId
    [SELF, 'org.audit_event_log.list:actor=U2', { principalId: 'U1', actorId: 'U1' }, false],
    // unconstrained held list grants any actor; the default grant does not grant the whole list
    ['org.audit_event_log.list', 'org.audit_event_log.list:actor=U2', me, true],
    // a held concrete id is granted to a required self only for that principal
    ['org.audit_event_log.list:actor=U1', 'org.audit_event_log.list:actor=self', me, true],
    ['org.audit_event_log.list:actor=U1', 'org.audit_event_log.list:actor=self', { principalId: 'U2' }, false],
    // `self` is special only for the `actor` key
    ['org.member.update:member=self', 'org.member.update:member=U1', me, false],
    // `actor!=self`: anyone else's events
    ['org.audit_event_log.list:actor!=self', 'org.audit_event_log.list:actor=U2', me, true],
    ['org.audit_event_log.list:actor!=self', 'org.audit_event_log.list:actor=U1', me, false],
  ])('%s grants %s with %j → %s', (held, required, context, expected) => {
    expect(scopeGrants(held, required, context)).toBe(expected);
  });
});

describe('scopeReaches — some narrowing of the required scope is granted', () => {
  it.each<Row>([
    ['org.member.invite:team=A', 'org.member.invite', true],
    ['org.member.invite', 'org.member.invite', true],
    ['org.*', 'org.member.invite', true],
    ['org.member.invite:team=*', 'org.member.invite', false],
    ['org.member.invite:team=A', 'org.member.invite:team=B', false],
    ['org.member.invite:team=A', 'org.member.invite:team=A', true],
    ['org.member.revoke:team=A', 'org.member.invite', false],
  ])('%s reaches %s → %s', (held, required, expected) => {
    expect(scopeReaches(held, required)).toBe(expected);
  });
});

it('scopeGrants throws INVALID_SCOPE on malformed text', () => {
  expect(() => scopeGrants('org', 'org.project.read')).toThrow(ScopeSyntaxError);
  expect(() => scopeGrants('org.project.read', 'org.project.read:')).toThrow(ScopeSyntaxError);
});
