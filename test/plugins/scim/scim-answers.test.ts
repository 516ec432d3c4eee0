/**
 * What every SCIM answer carries, across organizations and failures: its own headers (a 201's
 * `Location` never leaks into another answer), and the RFC 7644 §3.12 error body for 401 (answered
 * before any route) and for a failure nobody expected (500) — with nothing written.
 * @see docs/api/scim.md "Answers and errors"
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const UNKNOWN = '00000000-0000-4000-8000-000000000000';

describe('SCIM answers and errors', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  const tokens: Record<string, string> = {};
  const scim = (slug: string, method: string, path: string, body?: unknown, token = tokens[slug]) =>
    aerie.request(method, `/scim/v2/${slug}${path}`, { token, ...(body === undefined ? {} : { body, headers: { 'content-type': 'application/scim+json' } }) });

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    for (const org of [acme, globex]) {
      tokens[org.slug] = (await aerie.request('POST', `/api/org/${org.slug}/settings/scim/tokens`, { token: org.owner, body: { name: 'IdP' } })).body.value;
    }
  });
  afterAll(() => aerie?.close());

  it("gives each answer its own Location: after a 201 at one organization, another's answers carry none, and its own 201 its own", async () => {
    const group = await scim('acme', 'POST', '/Groups', { schemas: [GROUP], displayName: 'Acme Ops' });
    expect(group.status).toBe(201);
    expect(group.headers.get('location')).toBe(group.body.meta.location);
    expect(group.headers.get('location')).toMatch(new RegExp(`/scim/v2/acme/Groups/${group.body.id}$`));
    const user = await scim('acme', 'POST', '/Users', { schemas: [USER], userName: 'ann@acme.test' });
    expect(user.headers.get('location')).toMatch(new RegExp(`/scim/v2/acme/Users/${user.body.id}$`));

    // Another organization's answers, errors first: none carries acme's (or any) Location.
    const missing = await scim('globex', 'GET', `/Users/${UNKNOWN}`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ schemas: [ERROR], status: '404', detail: `No User ${UNKNOWN}.` });
    const refused = await scim('globex', 'POST', '/Users', { schemas: [USER], userName: 'no address' });
    expect(refused.status).toBe(400);
    const listed = await scim('globex', 'GET', '/Users');
    const discovery = await scim('globex', 'GET', '/ServiceProviderConfig');
    const taken = await scim('acme', 'POST', '/Groups', { schemas: [GROUP], displayName: 'Acme Ops' });
    expect(taken.status).toBe(409);
    for (const res of [missing, refused, listed, discovery, taken]) {
      expect(res.headers.get('location'), `${res.status} ${JSON.stringify(res.body)}`).toBeNull();
      expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    }
    const own = await scim('globex', 'POST', '/Groups', { schemas: [GROUP], displayName: 'Globex Ops' });
    expect(own.status).toBe(201);
    expect(own.headers.get('location')).toMatch(new RegExp(`/scim/v2/globex/Groups/${own.body.id}$`));
    expect((await scim('acme', 'GET', `/Groups/${group.body.id}`)).headers.get('location')).toBeNull();
  });

  it('answers 401 with the SCIM error body: no token, an unknown one, another organization\'s, a session', async () => {
    const cases: Array<[string, string | undefined]> = [['no token', undefined], ['an unknown token', 'scim_made_up'], ["globex's token", tokens.globex], ['a session', acme.owner]];
    for (const [what, token] of cases) {
      const res = await aerie.request('GET', '/scim/v2/acme/Users', { ...(token ? { token } : {}) });
      expect(res.status, what).toBe(401);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/scim\+json/);
      expect(res.headers.get('www-authenticate'), what).toMatch(/^Bearer/);
      expect(res.body, what).toEqual({ schemas: [ERROR], status: '401', detail: expect.stringMatching(/SCIM token/) });
    }
    // A write is refused the same way, before its body is read: nothing is provisioned.
    const write = await aerie.request('POST', '/scim/v2/acme/Users', { token: tokens.globex, body: { schemas: [USER], userName: 'eve@acme.test' } });
    expect(write.body).toMatchObject({ schemas: [ERROR], status: '401' });
    expect(await aerie.sql("select id from accounts.accounts where email = 'eve@acme.test'")).toEqual([]);
  });

  it('answers a failure nobody expected as a SCIM 500 naming the request id, and writes nothing', async () => {
    const eventsBefore = (await auditEvents(aerie, acme)).length;
    await aerie.sql('alter table scim.user_attributes rename to user_attributes_away');
    try {
      for (const [method, path, body] of [['GET', '/Users', undefined], ['POST', '/Users', { schemas: [USER], userName: 'zoe@acme.test', name: { givenName: 'Zoe' } }]] as const) {
        const res = await scim('acme', method, path, body);
        expect(res.status).toBe(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
        expect(res.body).toEqual({ schemas: [ERROR], status: '500', detail: `Something went wrong on our side (request ${res.headers.get('x-request-id')}).` });
      }
    } finally {
      await aerie.sql('alter table scim.user_attributes_away rename to user_attributes');
    }
    // The POST's transaction left nothing: no account, no membership, no audit event.
    expect(await aerie.sql("select id from accounts.accounts where email = 'zoe@acme.test'")).toEqual([]);
    expect((await auditEvents(aerie, acme)).length).toBe(eventsBefore);
    expect((await scim('acme', 'GET', '/Users')).status).toBe(200);
  });

  it('answers what the HTTP layer refuses before a SCIM route runs in the SCIM error body too: 413, a body that does not parse, a NUL id, 404 and 405', async () => {
    const raw = (method: string, path: string, body?: string | Uint8Array<ArrayBuffer>) => fetch(`${aerie.url}/scim/v2/acme${path}`, {
      method, headers: { authorization: `Bearer ${tokens.acme}`, 'content-type': 'application/scim+json' }, ...(body === undefined ? {} : { body }),
    });
    const cases: Array<[string, Promise<Response>, number]> = [
      ['a body over 1 MiB', raw('POST', '/Users', JSON.stringify({ userName: 'x'.repeat(1_100_000) })), 413],
      ['a body that is not JSON', raw('POST', '/Schemas', 'test'), 400],
      ['a body that is not UTF-8', raw('POST', '/Users', new Uint8Array([...Buffer.from('{"userName":"'), 0xff, 0xfe, ...Buffer.from('"}')]) as Uint8Array<ArrayBuffer>), 400],
      ['NUL in a path id', raw('GET', '/Users/a%00b'), 400],
      ['a path no route serves', raw('GET', '/Nothing'), 404],
      ['a method no route serves', raw('POST', '/ServiceProviderConfig', '{}'), 405],
    ];
    for (const [what, pending, status] of cases) {
      const res = await pending;
      expect(res.status, what).toBe(status);
      expect(res.headers.get('content-type'), what).toMatch(/^application\/scim\+json/);
      expect(await res.json(), what).toEqual({ schemas: [ERROR], status: String(status), detail: expect.any(String) });
    }
  });
});
