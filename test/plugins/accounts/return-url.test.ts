import { describe, expect, it } from 'vitest';
import { DEFAULT_RETURN_URL, doorPrompt, safeReturnUrl } from '../../../plugins/accounts/return-url.ts';

/** The dashboard door's `returnUrl`: same-origin relative paths only; anything else is the default. */
describe('accounts: the dashboard door returnUrl and prompt', () => {
  it.each([
    ['/dashboard', '/dashboard'],
    ['/login/client_x/aerie', '/login/client_x/aerie'],
    ['/a/b?x=1#top', '/a/b?x=1#top'],
    ['/a/../b', '/b'],
    ['https://evil.example/x', DEFAULT_RETURN_URL],
    ['//evil.example/x', DEFAULT_RETURN_URL],
    ['/\\evil.example', DEFAULT_RETURN_URL],
    ['\\\\evil.example', DEFAULT_RETURN_URL],
    ['javascript:alert(1)', DEFAULT_RETURN_URL],
    ['dashboard', DEFAULT_RETURN_URL],
    ['/a\nb', DEFAULT_RETURN_URL],
    ['/a\tb', DEFAULT_RETURN_URL],
    ['', DEFAULT_RETURN_URL],
    [undefined, DEFAULT_RETURN_URL],
    [`/${'a'.repeat(2001)}`, DEFAULT_RETURN_URL],
    // Spellings that normalise to another host (`//host`): refused, never passed on normalised.
    ['/.//evil.example/phish', DEFAULT_RETURN_URL],
    ['/..//evil.example', DEFAULT_RETURN_URL],
    ['/%2e//evil.example', DEFAULT_RETURN_URL],
    ['/%2E//evil.example', DEFAULT_RETURN_URL],
    ['/%2e%2e//evil.example', DEFAULT_RETURN_URL],
    ['/a/..//evil.example', DEFAULT_RETURN_URL],
    ['/a/../..//evil.example', DEFAULT_RETURN_URL],
    ['/././/evil.example', DEFAULT_RETURN_URL],
    ['/.%2f/evil.example', '/.%2f/evil.example'],
    ['/%2f%2fevil.example', '/%2f%2fevil.example'],
    ['/%5c%5cevil.example', '/%5c%5cevil.example'],
    ['/.\\evil.example', DEFAULT_RETURN_URL],
    ['/x/../\\evil.example', DEFAULT_RETURN_URL],
    ['///evil.example', DEFAULT_RETURN_URL],
    ['/\t/evil.example', DEFAULT_RETURN_URL],
    ['/\u0000/evil.example', DEFAULT_RETURN_URL],
    ['/ /evil.example', '/%20/evil.example'],
    ['http:/evil.example', DEFAULT_RETURN_URL],
    ['https:evil.example', DEFAULT_RETURN_URL],
    [' /dashboard', DEFAULT_RETURN_URL],
    ['/dashboard/..', '/'],
    ['/a/./b/../c', '/a/c'],
    ['/%2e%2e/dashboard', '/dashboard'],
    ['/a?next=//evil.example', '/a?next=//evil.example'],
    ['/a#//evil.example', '/a#//evil.example'],
    ['/\u2028/evil.example', '/%E2%80%A8/evil.example'],
    ['/..', '/'],
    ['/.', '/'],
    ['/%2e', '/'],
    ['?x=1', DEFAULT_RETURN_URL],
    ['#top', DEFAULT_RETURN_URL],
    ['/.//', DEFAULT_RETURN_URL],
  ])('%j → %j', (input, expected) => {
    const safe = safeReturnUrl(input);
    expect(safe).toBe(expected);
    // What the page navigates to is a path on this origin, and a fixed point of the rule.
    expect(new URL(safe, 'https://aerie.example').origin).toBe('https://aerie.example');
    expect(safeReturnUrl(safe)).toBe(safe);
  });

  it.each([[undefined, 'login'], ['login', 'login'], ['select_account', 'select_account'], ['consent', 'login'], ['SELECT_ACCOUNT', 'login']])(
    'prompt %j → %j', (input, expected) => {
      expect(doorPrompt(input)).toBe(expected);
    });
});
