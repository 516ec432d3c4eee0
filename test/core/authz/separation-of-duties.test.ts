import { describe, expect, it } from 'vitest';
import { checkAssignment, findSodConflicts, SOD_PAIRS, ScopeSyntaxError } from '../../../core/authz/index.ts';

/** The spec's table, written out again so a change to SOD_PAIRS fails here. */
const SPEC_TABLE: Array<[string, string]> = [
  ['org.permission.create', 'org.audit_event_log.delete'],
  ['org.role.assign', 'org.audit_event_log.delete'],
  ['org.reporting_instance.create', 'org.reporting_instance.approval_step.update'],
  ['org.member.invite', 'org.member.revoke'],
];

it('SOD_PAIRS is the spec table', () => {
  expect(SOD_PAIRS.map((p) => [p.a, p.b])).toEqual(SPEC_TABLE);
});

describe.each(SPEC_TABLE)('pair %s / %s', (a, b) => {
  it('holding both halves is a conflict', () => {
    expect(findSodConflicts([a, b])).toEqual([{ a, b }]);
  });
  it('assigning the second half to a holder of the first is refused', () => {
    expect(checkAssignment([a], [b])).toEqual([{ a, b, introduced: true }]);
    expect(checkAssignment([b], [a])).toEqual([{ a, b, introduced: true }]);
  });
  it.each([[a], [b]])('holding only %s is allowed', (half) => {
    expect(findSodConflicts([half])).toEqual([]);
    expect(checkAssignment([], [half])).toEqual([]);
  });
  it('constrained halves still count', () => {
    expect(findSodConflicts([`${a}:team=T1`, `${b}:team=T2`])).toEqual([{ a, b }]);
  });
  it('an unfilled half grants nothing', () => {
    expect(findSodConflicts([a, `${b}:team=*`])).toEqual([]);
  });
});

describe('wildcards hold both halves', () => {
  it.each<[string[], Array<[string, string]>]>([
    [['*'], SPEC_TABLE],
    [['org.*'], SPEC_TABLE],
    [['org.member.*'], [['org.member.invite', 'org.member.revoke']]],
    [['org.reporting_instance.*'], [['org.reporting_instance.create', 'org.reporting_instance.approval_step.update']]],
    [['org.audit_event_log.*', 'org.role.assign'], [['org.role.assign', 'org.audit_event_log.delete']]],
    [['org.member.invite', 'org.meeting.*', 'view.*'], []],
    [['org.reporting_instance.approval_step.*', 'org.reporting_instance.read'], []],
  ])('%j', (held, expected) => {
    expect(findSodConflicts(held)).toEqual(expected.map(([a, b]) => ({ a, b })));
  });
});

describe('checkAssignment', () => {
  it('reports a pair already held as not introduced, so the next grant still fails', () => {
    expect(checkAssignment(['org.member.invite', 'org.member.revoke'], ['view.business'])).toEqual([
      { a: 'org.member.invite', b: 'org.member.revoke', introduced: false },
    ]);
  });
  it('mixes old and new conflicts', () => {
    expect(checkAssignment(['org.member.invite', 'org.member.revoke', 'org.role.assign'], ['org.audit_event_log.delete'])).toEqual([
      { a: 'org.role.assign', b: 'org.audit_event_log.delete', introduced: true },
      { a: 'org.member.invite', b: 'org.member.revoke', introduced: false },
    ]);
  });
  it('allows an assignment that completes no pair', () => {
    expect(checkAssignment(['org.member.invite'], ['org.project.read', 'org.audit_event_log.list'])).toEqual([]);
  });
  it('throws INVALID_SCOPE on malformed input', () => {
    expect(() => checkAssignment([], ['org.member.'])).toThrow(ScopeSyntaxError);
  });
});
