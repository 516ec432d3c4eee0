import { describe, expect, it } from 'vitest';
import { isValidPattern, matchesAny } from '../../../plugins/webhooks/event-patterns.ts';

describe('webhook event patterns', () => {
  const table: Array<[unknown, string, boolean]> = [
    [['*'], 'org.member.invited', true],
    [['org.member.*'], 'org.member.invited', true],
    [['org.member.*'], 'org.member.role.changed', true],
    [['org.member.*'], 'org.member', false], // the dot boundary: the prefix itself is not under it
    [['org.member.*'], 'org.membership.created', false],
    [['org.member.*'], 'xorg.member.invited', false],
    [['ORG.Member.*'], 'org.member.invited', true],
    [['org.app_group.created'], 'ORG.APP_GROUP.CREATED', true],
    [['org.app_group.created'], 'org.app_group.created.extra', false],
    [['org.app_group.created'], 'org.app_group', false],
    [['a.*', 'b.c'], 'b.c', true],
    [[], 'org.member.invited', false], // empty list: nothing
    [['org.member.*', 'org..x'], 'org.member.invited', false], // one malformed pattern: nothing
    [['org.*.invited'], 'org.member.invited', false],
    [['org.member*'], 'org.member.invited', false],
    [['*.invited'], 'org.member.invited', false],
    [[' org.member.invited'], 'org.member.invited', false],
    [['org.member.invited\u0000'], 'org.member.invited', false],
    [[42], 'org.member.invited', false],
    ['*', 'org.member.invited', false], // not a list
    [null, 'org.member.invited', false],
  ];
  it.each(table)('%j selects %s: %s', (patterns, type, expected) => {
    expect(matchesAny(patterns, type)).toBe(expected);
  });

  it.each(['*', 'a', 'a.b', 'a_b-c.d', 'a.*', 'a.b.*'])('%s is a valid pattern', (p) => expect(isValidPattern(p)).toBe(true));
  it.each(['', '.', 'a.', '.a', 'a..b', '**', 'a.**', 'a.*.b', '*a', 'a b', 'é.x', 'x'.repeat(201)])('%j is not', (p) => expect(isValidPattern(p)).toBe(false));
});
