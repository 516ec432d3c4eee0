import { describe, expect, it } from 'vitest';
import { rpIdProblem } from '../../../plugins/apps/passkey-rp-id.ts';

const BASE = 'id.aerie.test';
const HOSTS = ['login.shop.example.com', 'app.example.co.uk', 'me.github.io'];

describe('apps: which passkey RP IDs a group may use', () => {
  const cases: Array<[string, string, boolean]> = [
    ['the service host', BASE, true],
    ['the service host in capitals', 'ID.AERIE.TEST', true],
    ['a redirect host itself', 'login.shop.example.com', true],
    ['a parent of a redirect host', 'shop.example.com', true],
    ['the registrable domain of a redirect host', 'example.com', true],
    ['a registrable domain under a two-level suffix', 'example.co.uk', true],
    ['a domain on a private public suffix', 'me.github.io', true],
    ['a bare public suffix', 'com', false],
    ['a two-level public suffix', 'co.uk', false],
    ['a private public suffix', 'github.io', false],
    ['a single label', 'localhost', false],
    ['an IP address', '127.0.0.1', false],
    ['a domain no redirect host is under', 'other.com', false],
    ['a child of a redirect host', 'x.login.shop.example.com', false],
    ['a string suffix that is not a label suffix', 'hop.example.com', false],
    ['the parent of the service host', 'aerie.test', false],
  ];
  it.each(cases)('%s (%s): allowed %s', (_label, rpId, allowed) => {
    expect(rpIdProblem(rpId, BASE, HOSTS) === undefined).toBe(allowed);
  });
});
