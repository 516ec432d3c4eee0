import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership } from '../apps/helpers.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM 2.0: tokens, discovery and Users (read)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let acmeToken: string;
  let globexToken: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    await addMembership(aerie, acme, 'alice@acme.test', 'Admin');
    await aerie.sql("update accounts.accounts set display_name = 'Alice Archer' where email = 'alice@acme.test'");
    await addMembership(aerie, acme, 'bob@acme.test', 'Member');
    await addMembership(aerie, acme, 'carol@acme.test', 'Member');
    await aerie.sql("update orgs.memberships set status = 'suspended' where account_id = (select id from accounts.accounts where email = 'bob@acme.test')");
    await aerie.sql("update orgs.memberships set status = 'revoked' where account_id = (select id from accounts.accounts where email = 'carol@acme.test')");
    await addMembership(aerie, globex, 'gina@globex.test', 'Member');
    acmeToken = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Okta' } })).body.value;
    globexToken = (await aerie.request('POST', '/api/org/globex/settings/scim/tokens', { token: globex.owner, body: { name: 'Entra' } })).body.value;
  });
  afterAll(() => aerie?.close());

  const scim = (path: string, token: string | undefined = acmeToken, slug = 'acme') => aerie.request('GET', `/scim/v2/${slug}${path}`, { token });

  it('creates a token shown once and stored hashed; lists it without its value; audited', async () => {
    const res = await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Spare' } });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({ id: expect.any(String), name: 'Spare', createdAt: expect.any(String), lastUsedAt: null, revokedAt: null, value: expect.stringMatching(/^scim_[A-Za-z0-9_-]{43}$/) });
    const [row] = await aerie.sql('select token_hash from scim.tokens where id = ?', [res.body.id]);
    expect(row.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.token_hash).not.toContain(res.body.value);
    const list = await aerie.request('GET', '/api/org/acme/settings/scim/tokens', { token: acme.owner });
    expect(list.body.tokens.map((t: any) => t.name)).toEqual(['Okta', 'Spare']);
    expect(JSON.stringify(list.body)).not.toContain('scim_');
    expect((await auditEvents(aerie, acme, 'org.scim_token.created')).map((e) => e.businessData.name)).toEqual(['Okta', 'Spare']);
  });

  it('answers discovery documents as application/scim+json', async () => {
    const spc = await scim('/ServiceProviderConfig');
    expect(spc.status).toBe(200);
    expect(spc.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({ filter: { supported: true, maxResults: 200 }, patch: { supported: true }, authenticationSchemes: [{ type: 'oauthbearertoken' }] });
    expect((await scim('/ResourceTypes')).body.Resources).toEqual([
      expect.objectContaining({ id: 'User', endpoint: '/Users', schema: USER }),
      expect.objectContaining({ id: 'Group', endpoint: '/Groups', schema: 'urn:ietf:params:scim:schemas:core:2.0:Group' }),
    ]);
    expect((await scim(`/Schemas/${USER}`)).body).toMatchObject({ id: USER, name: 'User' });
    const missing = await scim('/Schemas/urn:nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ schemas: [ERROR], status: '404', detail: 'No schema urn:nope.' });
  });

  it('lists the members as Users (revoked memberships are not Users), paged', async () => {
    const res = await scim('/Users');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'], totalResults: 3, startIndex: 1, itemsPerPage: 3 });
    expect(res.body.Resources.map((u: any) => [u.userName.toLowerCase(), u.active])).toEqual([['owner@acme.test', true], ['alice@acme.test', true], ['bob@acme.test', false]]);
    const alice = res.body.Resources[1];
    // Never provisioned: userName is the account's email, name comes from the display name.
    expect(alice).toEqual({
      schemas: [USER], id: expect.stringMatching(/^[0-9a-f-]{36}$/), userName: 'alice@acme.test', active: true,
      name: { formatted: 'Alice Archer', familyName: 'Archer', givenName: 'Alice' }, displayName: 'Alice Archer',
      emails: [{ value: alice.userName, type: 'work', primary: true }],
      meta: { resourceType: 'User', created: expect.any(String), lastModified: expect.any(String), location: expect.stringMatching(new RegExp(`/scim/v2/acme/Users/${alice.id}$`)), version: expect.stringMatching(/^W\/"/) },
    });
    const page = await scim('/Users?startIndex=2&count=1');
    expect(page.body).toMatchObject({ totalResults: 3, startIndex: 2, itemsPerPage: 1 });
    expect(page.body.Resources[0].id).toBe(alice.id);
    expect((await scim('/Users?count=0')).body).toMatchObject({ totalResults: 3, itemsPerPage: 0, Resources: [] });
    expect((await scim('/Users?startIndex=0&count=-5')).body).toMatchObject({ startIndex: 1, itemsPerPage: 0 });
    expect((await scim(`/Users/${alice.id}`)).body).toEqual(alice);
  });

  it('answers only the attributes asked for (attributes, excludedAttributes; schemas and id always)', async () => {
    const only = await scim(`/Users?filter=${encodeURIComponent('userName eq "alice@acme.test"')}&attributes=userName,${USER}:active`);
    expect(only.body.Resources).toEqual([{ schemas: [USER], id: expect.any(String), userName: expect.stringMatching(/^alice@/i), active: true }]);
    const without = await scim(`/Users/${only.body.Resources[0].id}?excludedAttributes=emails,meta`);
    expect(Object.keys(without.body).sort()).toEqual(['active', 'displayName', 'id', 'name', 'schemas', 'userName']);
    expect((await scim('/Users?attributes=a&attributes=b')).status).toBe(400);
  });

  it.each([
    ['userName eq "ALICE@acme.test"', ['alice@acme.test']],
    ['emails[type eq "work"].value eq "bob@acme.test"', ['bob@acme.test']],
    ['active eq false', ['bob@acme.test']],
    ['userName sw "o" or userName sw "b"', ['owner@acme.test', 'bob@acme.test']],
    ['userName eq "carol@acme.test"', []], // revoked: not a User
    ['userName eq "gina@globex.test"', []], // another organization's member
    ['meta.created gt "2000-01-01T00:00:00Z" and not (active eq true)', ['bob@acme.test']],
    ['meta.created ge "0001-01-01T00:00:00Z"', ['owner@acme.test', 'alice@acme.test', 'bob@acme.test']],
  ])('filters %s', async (filter, expected) => {
    const res = await scim(`/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.Resources.map((u: any) => u.userName.toLowerCase())).toEqual(expected);
    expect(res.body.totalResults).toBe(expected.length);
  });

  it.each([
    ['userName eq', 'invalidFilter'], ['nickName eq "x"', 'invalidFilter'], ['active eq "yes"', 'invalidFilter'],
    // PostgreSQL knows no year 0 and no six-digit years: refused before any SQL runs, never a 500.
    ['meta.created gt "0000-01-01T00:00:00Z"', 'invalidFilter'], ['meta.lastModified lt "+010000-01-01T00:00:00Z"', 'invalidFilter'],
    [`${'('.repeat(5000)}userName eq "a"${')'.repeat(5000)}`, 'invalidFilter'],
  ])('refuses the filter %s with a SCIM 400', async (filter, scimType) => {
    const res = await scim(`/Users?filter=${encodeURIComponent(filter)}`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType, detail: expect.any(String) });
  });

  /**
   * Spec 01 "SCIM 2.0": a filter nested 10,000 levels deep or a 1 MB filter string is refused
   * quickly (a peer shipped a crash on exactly this). What fits in a URL reaches the filter parser,
   * whose length and depth limits answer 400 invalidFilter before any recursion; what does not
   * (over 16 KiB of request line) is answered 431 by the HTTP layer before any route runs
   * (docs/api/errors.md). Either way the answer comes at once and the next request is served.
   */
  describe('hostile filters on GET /Users and GET /Groups', () => {
    const nested = (levels: number, close: boolean) => `${'('.repeat(levels)}displayName eq "x"${close ? ')'.repeat(levels) : ''}`;
    const nextAnswers = async () => {
      const users = await scim(`/Users?filter=${encodeURIComponent('userName eq "alice@acme.test"')}`);
      expect(users.status).toBe(200);
      expect(users.body.Resources.map((u: any) => u.userName)).toEqual(['alice@acme.test']);
      const groups = await scim(`/Groups?filter=${encodeURIComponent('displayName eq "Guest"')}`);
      expect(groups.status).toBe(200);
      expect(groups.body.Resources.map((g: any) => g.displayName)).toEqual(['Guest']);
    };

    describe.each(['/Users', '/Groups'])('%s', (resource) => {
      it.each([
        ['10,000 opening parentheses (a 10 KB URL)', nested(10_000, false), /longer than 4096/],
        ['nested 1,980 levels within the length limit', nested(1_980, true), /nested deeper than 32/],
        ['33 levels', nested(33, true), /nested deeper than 32/],
        ['a 12,000-character string', `displayName eq "${'a'.repeat(12_000)}"`, /longer than 4096/],
      ])('refuses a filter of %s with 400 invalidFilter', async (_label, filter, detail) => {
        const res = await scim(`${resource}?filter=${encodeURIComponent(filter)}`);
        expect(res.status).toBe(400);
        expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
        expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType: 'invalidFilter', detail: expect.stringMatching(detail) });
        await nextAnswers();
      });

      it.each([
        ['nested 10,000 levels (balanced, a 20 KB URL)', nested(10_000, true)],
        ['of 1 MB', `displayName eq "${'a'.repeat(1024 * 1024)}"`],
      ])('refuses a filter %s before any route runs (431, the URL is over 16 KiB)', async (_label, filter) => {
        const res = await scim(`${resource}?filter=${encodeURIComponent(filter)}`);
        expect(res.status).toBe(431);
        expect(res.body).toEqual({ error: 'HEADERS_TOO_LARGE', message: expect.any(String) });
        await nextAnswers();
      });
    });
  });

  it('refuses malformed paging with a SCIM 400 invalidValue', async () => {
    const res = await scim('/Users?count=ten');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  it("never reaches another organization: its ids are 404, its path is 401 with this token, no token is 401", async () => {
    const [gina] = await aerie.sql("select m.id from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = 'gina@globex.test'");
    const foreign = await scim(`/Users/${gina.id}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ schemas: [ERROR], status: '404', detail: `No User ${gina.id}.` });
    expect((await scim('/Users/not-an-id')).status).toBe(404);
    expect((await scim('/Users', acmeToken, 'globex')).status).toBe(401);
    expect((await scim('/Users', globexToken, 'acme')).status).toBe(401);
    expect((await scim('/Users', '')).status).toBe(401); // no Authorization header
    expect((await scim('/Users', 'scim_made_up')).status).toBe(401);
    expect((await scim('/Users', acme.owner)).status).toBe(401); // a session is not a SCIM token
    expect((await scim('/Users', globexToken, 'globex')).body.Resources.map((u: any) => u.userName)).toEqual(['owner@globex.test', 'gina@globex.test']);
  });

  it('a revoked token stops at once and stays listed; an erased one is gone; foreign token ids are 404', async () => {
    const made = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'Temp' } })).body;
    expect((await scim('/Users', made.value)).status).toBe(200);
    expect((await aerie.request('DELETE', `/api/org/acme/settings/scim/tokens/${made.id}`, { token: acme.owner })).status).toBe(204);
    expect((await scim('/Users', made.value)).status).toBe(401);
    const listed = (await aerie.request('GET', '/api/org/acme/settings/scim/tokens', { token: acme.owner })).body.tokens.find((t: any) => t.id === made.id);
    expect(listed).toMatchObject({ revokedAt: expect.any(String), lastUsedAt: expect.any(String) });
    expect((await aerie.request('DELETE', `/api/org/acme/settings/scim/tokens/${made.id}/hard`, { token: acme.owner })).status).toBe(204);
    expect(await aerie.sql('select id from scim.tokens where id = ?', [made.id])).toEqual([]);
    const globexIds = (await aerie.request('GET', '/api/org/globex/settings/scim/tokens', { token: globex.owner })).body.tokens.map((t: any) => t.id);
    for (const path of [`/api/org/acme/settings/scim/tokens/${globexIds[0]}`, `/api/org/acme/settings/scim/tokens/${globexIds[0]}/hard`]) {
      expect((await aerie.request('DELETE', path, { token: acme.owner })).status).toBe(404);
    }
    expect((await scim('/Users', globexToken, 'globex')).status).toBe(200);
    const types = (await auditEvents(aerie, acme)).filter((e) => e.businessData.tokenId === made.id).map((e) => e.eventType);
    expect(types).toEqual(['org.scim_token.created', 'org.scim_token.revoked', 'org.scim_token.erased']);
  });
});
