import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { invitationMail } from '../../../plugins/members/invitation-mail.ts';

/** Characters a name may not hold, each on its own: line breaks, controls, bidi overrides and isolates. */
const UNSAFE: Array<[string, string]> = [
  ['CR', '\r'], ['LF', '\n'], ['TAB', '\t'], ['ESC', '\u001b'], ['NEL (C1)', '\u0085'], ['DEL', '\u007f'],
  ['RLO', '\u202e'], ['LRE', '\u202a'], ['RLI', '\u2067'], ['PDI', '\u2069'], ['RLM', '\u200f'], ['line separator', '\u2028'],
  // Invisible: default-ignorable and format characters, blank fillers ("Ad\u200Bmin" passing for "Admin").
  ['zero-width space', '\u200b'], ['Mongolian vowel separator', '\u180e'], ['tag letter A', '\u{E0041}'], ['Hangul filler', '\u3164'],
  ['Braille blank', '\u2800'], ['zero-width joiner (not in an emoji)', '\u200d'], ['word joiner', '\u2060'], ['soft hyphen', '\u00ad'],
  ['variation selector (not after an emoji)', '\ufe0f'], ['BOM', '\ufeff'],
];

describe('names refuse control and bidi-override characters on every route that stores one (400, nothing written)', () => {
  let aerie: TestAerie;
  let token: string;
  let roleId: string;
  let appGroupId: string;
  beforeAll(async () => {
    aerie = await TestAerie.start();
    token = await aerie.signIn('names@example.com', 'Names Owner');
    expect((await aerie.request('POST', '/api/org/create', { token, body: { name: 'Names Org', slug: 'names' } })).status).toBe(201);
    roleId = (await aerie.request('POST', '/api/org/names/roles', { token, body: { Name: 'Reviewer', RoleKey: 'REVIEWER' } })).body.RoleId;
    const group = await aerie.request('POST', '/api/org/names/app-groups', { token, body: { name: 'Shop' } });
    expect(group.status, JSON.stringify(group.body)).toBe(201);
    appGroupId = group.body.id;
  });
  afterAll(() => aerie?.close());

  const routes: Array<[string, string, (name: string) => [string, string, unknown], string, string]> = [
    ['registration displayName', 'accounts.email_codes', (n) => ['POST', '/api/v1/users/registration/email', { email: 'someone@example.com', displayName: `Eve${n}x` }], 'displayName', ''],
    ['profile displayName', 'accounts.accounts', (n) => ['PUT', '/api/v1/users/me/profile', { displayName: `Eve${n}x` }], 'displayName', `where display_name like 'Eve%'`],
    ['organization name', 'orgs.organizations', (n) => ['POST', '/api/org/create', { name: `Acme${n}Ltd`, slug: 'acme-bidi' }], 'name', ''],
    ['role name (create)', 'rbac.roles', (n) => ['POST', '/api/org/names/roles', { Name: `Boss${n}x`, RoleKey: 'BIDI_ROLE' }], 'Name', ''],
    ['role name (update)', 'rbac.roles', (n) => ['PUT', `/api/org/names/roles/${roleId}`, { Name: `Boss${n}x` }], 'Name', `where name like 'Boss%'`],
    ['API key name', 'keys.api_keys', (n) => ['POST', '/api/org/names/settings/keys/api-keys', { name: `ci${n}key` }], 'name', ''],
    ['app group name', 'apps.app_groups', (n) => ['POST', '/api/org/names/app-groups', { name: `Sh${n}op` }], 'name', ''],
    ['end user display name', 'endusers.end_users', (n) => ['POST', '/api/org/names/endusers', { email: 'eu@example.com', displayName: `Ad${n}min`, appGroupId }], 'displayName', ''],
    ['team name', 'teams.teams', (n) => ['POST', '/api/org/names/teams', { Name: `Ops${n}x` }], 'Name', ''],
  ];

  for (const [label, table, request, field, where] of routes) {
    it.each(UNSAFE)(`${label}: refuses %s`, async (_char, ch) => {
      const before = (await aerie.sql(`select count(*)::int as n from ${table} ${where}`))[0].n;
      const [method, path, body] = request(ch);
      const res = await aerie.request(method, path, { token, body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'VALIDATION_FAILED', field });
      expect((await aerie.sql(`select count(*)::int as n from ${table} ${where}`))[0].n).toBe(before);
    });
  }

  it('still takes names in any script, with accents, emoji (joined sequences and variation selectors too) and ordinary punctuation', async () => {
    for (const name of ['Société Générale', '株式会社テスト', 'شركة', 'Ünïcødé — “quotes” & co. 🚀', '👩‍💻 Dev ❤️ 1️⃣ 👍🏽', 'نامه\u200cها', 'क्\u200dष']) {
      const res = await aerie.request('PUT', '/api/v1/users/me/profile', { token, body: { displayName: name } });
      expect(res.status).toBe(200);
      expect(res.body.displayName ?? res.body.account?.displayName).toBe(name);
    }
  });

  it('refuses invisible characters in SCIM Group names (400 invalidValue), keeping emoji', async () => {
    const scim = (await aerie.request('POST', '/api/org/names/settings/scim/tokens', { token, body: { name: 'IdP' } })).body.value;
    const post = (displayName: string) => aerie.request('POST', '/scim/v2/names/Groups', {
      token: scim, headers: { 'content-type': 'application/scim+json' }, body: { schemas: ['urn:ietf:params:scim:schemas:core:2.0:Group'], displayName },
    });
    for (const ch of ['\u200b', '\u{E0041}', '\u3164', '\u2800']) {
      const res = await post(`Ad${ch}mins`);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
    }
    expect((await post('Admins 👩‍💻')).status).toBe(201);
  });

  it('renders a name stored before the check as plain text in the invitation mail (no line break, no override)', () => {
    const mail = invitationMail({ to: 'x@example.com', orgName: 'Acme\r\nBcc: evil@example.com\u202e', roleName: 'Guest', token: 't', expiresAt: new Date(0), dashboardUrl: 'https://aerie.test', director: false });
    expect(mail.subject).toBe('You are invited to join Acme\ufffd\ufffdBcc: evil@example.com\ufffd on Aerie');
    expect(mail.text.split('\n')[0]).toBe('You have been invited to join Acme\ufffd\ufffdBcc: evil@example.com\ufffd as Guest.');
    const hidden = invitationMail({ to: 'x@example.com', orgName: 'Ad\u200bmin 👩‍💻', roleName: 'Gu\u2060est', token: 't', expiresAt: new Date(0), dashboardUrl: 'https://aerie.test', director: false });
    expect(hidden.text.split('\n')[0]).toBe('You have been invited to join Ad\ufffdmin 👩‍💻 as Gu\ufffdest.');
  });
});
