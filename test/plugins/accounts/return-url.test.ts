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
  ])('%j → %j', (input, expected) => {
    expect(safeReturnUrl(input)).toBe(expected);
  });

  it.each([[undefined, 'login'], ['login', 'login'], ['select_account', 'select_account'], ['consent', 'login'], ['SELECT_ACCOUNT', 'login']])(
    'prompt %j → %j', (input, expected) => {
      expect(doorPrompt(input)).toBe(expected);
    });
});
