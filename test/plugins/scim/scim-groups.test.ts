import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { customRole } from '../../helpers/org-members.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const GROUP = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/** Groups are the organization's roles; members are the Users holding them (docs/api/scim.md "Groups"). */
describe('SCIM 2.0 Groups', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let token: string;
  let globexToken: string;
  const user: Record<string, string> = {};
  let gina: string;

  const send = (method: string, path: string, body?: unknown, t = token, slug = 'acme') =>
    aerie.request(method, `/scim/v2/${slug}${path}`, { token: t, body, headers: body === undefined ? {} : { 'content-type': 'application/scim+json' } });
  const patch = (id: string, Operations: unknown[], t = token, slug = 'acme') => send('PATCH', `/Groups/${id}`, { schemas: [PATCH_OP], Operations }, t, slug);
  const holders = async (roleId: string) =>
    (await aerie.sql('select distinct membership_id from rbac.role_assignments where role_id = ? order by 1', [roleId])).map((r) => r.membership_id as string).sort();
  const membersOf = async (id: string) => ((await send('GET', `/Groups/${id}`)).body.members ?? []).map((m: { value: string }) => m.value).sort();
  const ids = (...names: string[]) => names.map((n) => user[n]!).sort();

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    token = (await aerie.request('POST', '/api/org/acme/settings/scim/tokens', { token: acme.owner, body: { name: 'IdP' } })).body.value;
    globexToken = (await aerie.request('POST', '/api/org/globex/settings/scim/tokens', { token: globex.owner, body: { name: 'IdP' } })).body.value;
    for (const name of ['ann', 'bob', 'cid', 'dee', 'eve']) {
      const res = await send('POST', '/Users', { schemas: [USER], userName: `${name}@acme.test`, displayName: name.toUpperCase() });
      user[name] = res.body.id;
    }
    [{ id: user.owner }] = await aerie.sql("select m.id from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email = 'owner@acme.test'");
    gina = (await send('POST', '/Users', { schemas: [USER], userName: 'gina@globex.test' }, globexToken, 'globex')).body.id;
  });
  afterAll(() => aerie?.close());

  it('publishes Group in discovery (ResourceTypes, Schemas)', async () => {
    const types = await send('GET', '/ResourceTypes');
    expect(types.body.Resources.map((r: any) => [r.id, r.endpoint, r.schema])).toEqual([['User', '/Users', USER], ['Group', '/Groups', GROUP]]);
    const schemas = await send('GET', '/Schemas');
    expect(schemas.body).toMatchObject({ totalResults: 2, Resources: [{ id: USER }, { id: GROUP }] });
    const group = await send('GET', `/Schemas/${GROUP}`);
    expect(group.status).toBe(200);
    expect(group.body.attributes.map((a: any) => a.name)).toEqual(['displayName', 'externalId', 'members']);
  });

  it("lists the organization's roles as Groups (the presets included; Owner and Admin are membership roles, not Groups)", async () => {
    const res = await send('GET', '/Groups');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const names = res.body.Resources.map((g: any) => g.displayName);
    expect(names).toEqual(expect.arrayContaining(['Director', 'Guest', 'Freelancer', 'Project guest']));
    expect(names).not.toContain('Owner');
    expect(res.body.Resources[0]).toMatchObject({ schemas: [GROUP], members: [], meta: { resourceType: 'Group', location: expect.stringContaining('/scim/v2/acme/Groups/') } });
    const [preset] = await aerie.sql("select id from rbac.roles where org_id = ? and role_key = 'ORG_GUEST'", [acme.id]);
    expect(res.body.Resources.find((g: any) => g.displayName === 'Guest').id).toBe(preset.id);
  });

  it('creates a Group (POST): a custom role with its members assigned through rbac, audited', async () => {
    const res = await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Engineering', externalId: 'grp-eng', members: [{ value: user.ann }, { value: user.bob, display: 'bob' }] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.headers.get('location')).toBe(res.body.meta.location);
    expect(res.body).toMatchObject({ schemas: [GROUP], displayName: 'Engineering', externalId: 'grp-eng' });
    expect(res.body.members.map((m: any) => m.value).sort()).toEqual(ids('ann', 'bob'));
    expect(res.body.members.find((m: any) => m.value === user.ann)).toEqual({ value: user.ann, display: 'ANN', type: 'User', $ref: expect.stringMatching(new RegExp(`/scim/v2/acme/Users/${user.ann}$`)) });
    const [role] = await aerie.sql('select role_key, name, is_preset from rbac.roles where id = ?', [res.body.id]);
    expect(role).toEqual({ role_key: 'ENGINEERING', name: 'Engineering', is_preset: false });
    expect(await holders(res.body.id)).toEqual(ids('ann', 'bob'));
    const roles = await aerie.request('GET', `/api/org/acme/roles/${res.body.id}`, { token: acme.owner });
    expect(roles.body).toMatchObject({ Name: 'Engineering', RoleKey: 'ENGINEERING' });
    const events = (await auditEvents(aerie, acme)).filter((e) => e.businessData.roleId === res.body.id);
    expect(events.map((e) => e.eventType)).toEqual(['org.role.created', 'org.role.assigned', 'org.role.assigned', 'org.scim_group.provisioned']);
    expect(events.at(-1)).toMatchObject({ actorType: 'system', businessData: { displayName: 'Engineering', externalId: 'grp-eng', added: 2 } });
    expect((await send('GET', `/Groups/${res.body.id}`)).body).toEqual(res.body);
  });

  it.each([
    ['an existing name, in any case', { displayName: 'engineering' }, 409, 'uniqueness'],
    ['a preset name', { displayName: 'GUEST' }, 409, 'uniqueness'],
    ['a taken externalId', { displayName: 'Other', externalId: 'grp-eng' }, 409, 'uniqueness'],
    ['the Owner membership role', { displayName: 'Owner' }, 400, 'invalidValue'],
    ['the Admin membership role', { displayName: 'admin' }, 400, 'invalidValue'],
    ['no displayName', { members: [] }, 400, 'invalidValue'],
    ['a member of another organization', { displayName: 'Leak', members: [{ value: 'GINA' }] }, 400, 'invalidValue'],
    ['an unknown member', { displayName: 'Ghost', members: [{ value: '00000000-0000-4000-8000-000000000000' }] }, 400, 'invalidValue'],
    ['a malformed member', { displayName: 'Bad', members: [{ id: 'x' }] }, 400, 'invalidValue'],
  ])('refuses to create a Group with %s (%s %s) and writes nothing', async (_label, body, status, scimType) => {
    const sent = JSON.parse(JSON.stringify(body).replace('GINA', gina));
    const before = await aerie.sql('select count(*)::int as n from rbac.roles where org_id = ?', [acme.id]);
    const res = await send('POST', '/Groups', { schemas: [GROUP], ...sent });
    expect(res.status, JSON.stringify(res.body)).toBe(status);
    expect(res.body).toMatchObject({ schemas: [ERROR], status: String(status), scimType });
    expect(await aerie.sql('select count(*)::int as n from rbac.roles where org_id = ?', [acme.id])).toEqual(before);
  });

  describe('PATCH: the forms Entra ID and Okta send', () => {
    let group: string;
    beforeAll(async () => {
      group = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Sales' })).body.id;
    });

    /** `@ann` stands for ann's User id and `@group` for the Group's id (known only once the suite runs). */
    const ref = (name: string) => ({ value: `@${name}` });
    it.each([
      ['Entra: Add members (value list)', [], [{ op: 'Add', path: 'members', value: [ref('ann'), ref('bob')] }], ['ann', 'bob']],
      ['Entra: Remove members[value eq "…"]', ['ann', 'bob'], [{ op: 'Remove', path: 'members[value eq "@bob"]' }], ['ann']],
      ['Entra: Remove members with a value list (only those)', ['ann', 'bob', 'cid'], [{ op: 'Remove', path: 'members', value: [ref('bob')] }], ['ann', 'cid']],
      ['Entra: Replace displayName (members untouched)', ['ann'], [{ op: 'Replace', path: 'displayName', value: 'Sales EMEA' }], ['ann']],
      ['Okta: pathless replace {id, displayName} (members untouched)', ['ann', 'bob'], [{ op: 'replace', value: { id: '@group', displayName: 'Sales' } }], ['ann', 'bob']],
      ['Okta: add members with display', ['ann'], [{ op: 'add', path: 'members', value: [{ value: '@cid', display: 'cid@acme.test' }] }], ['ann', 'cid']],
      ['Okta: remove members[value eq "…"]', ['ann', 'cid'], [{ op: 'remove', path: 'members[value eq "@cid"]' }], ['ann']],
      ['replace members (the whole list)', ['ann', 'bob'], [{ op: 'replace', path: 'members', value: [ref('cid'), ref('dee')] }], ['cid', 'dee']],
      ['remove members (everyone)', ['ann', 'bob'], [{ op: 'remove', path: 'members' }], []],
      ['pathless add {members}', ['ann'], [{ op: 'Add', value: { members: [ref('bob')] } }], ['ann', 'bob']],
      ['a value filter with or', ['ann', 'bob', 'cid'], [{ op: 'remove', path: 'members[value eq "@ann" or value eq "@cid"]' }], ['bob']],
      ['adding a member twice and removing a non-member (no change)', ['ann'], [{ op: 'add', path: 'members', value: [ref('ann')] }, { op: 'remove', path: 'members[value eq "@bob"]' }], ['ann']],
      ['several operations in order', ['ann'], [{ op: 'add', path: 'members', value: [ref('bob')] }, { op: 'remove', path: 'members', value: [ref('ann')] }, { op: 'add', path: 'members', value: [ref('eve')] }], ['bob', 'eve']],
      ['Okta: pathless replace {members} (the whole list)', ['ann', 'bob'], [{ op: 'replace', value: { members: [ref('cid')] } }], ['cid']],
      ['pathless Replace with URN-qualified keys', ['ann'], [{ op: 'Replace', value: { [`${GROUP}:displayName`]: 'Sales', [`${GROUP}:members`]: [ref('bob')] } }], ['bob']],
      ['Entra: Replace externalId (members untouched)', ['ann'], [{ op: 'Replace', path: 'externalId', value: 'entra-sales' }], ['ann']],
      ['Entra: Remove a URN-qualified members[value eq "…"]', ['ann', 'bob'], [{ op: 'Remove', path: `${GROUP}:members[value eq "@ann"]` }], ['bob']],
      // The last case leaves ann the only member: the filter tests below rely on it.
      ['a URN-qualified path and schemas (accepted, not kept)', ['ann'], [{ op: 'replace', path: `${GROUP}:displayName`, value: 'Sales' }, { op: 'replace', path: 'schemas', value: [GROUP] }], ['ann']],
    ])('%s', async (_label, before, ops, after) => {
      const put = await send('PUT', `/Groups/${group}`, { schemas: [GROUP], displayName: 'Sales', members: before.map((n) => ({ value: user[n] })) });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
      const sent = JSON.parse(JSON.stringify(ops).replace(/@(\w+)/g, (_m, n: string) => (n === 'group' ? group : user[n]!)));
      const res = await patch(group, sent);
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect(await membersOf(group)).toEqual(ids(...after));
      expect(await holders(group)).toEqual(ids(...after));
    });

    it('renames the role (Entra "Replace displayName"), audited by rbac and scim', async () => {
      expect((await patch(group, [{ op: 'Replace', path: 'displayName', value: 'Sales EMEA' }])).status).toBe(204);
      expect((await aerie.sql('select name from rbac.roles where id = ?', [group]))[0].name).toBe('Sales EMEA');
      const events = (await auditEvents(aerie, acme)).filter((e) => e.businessData.roleId === group).slice(-2);
      expect(events.map((e) => e.eventType)).toEqual(['org.role.updated', 'org.scim_group.updated']);
      expect(events[1]!.businessData).toMatchObject({ renamed: true, added: 0, removed: 0 });
      expect((await patch(group, [{ op: 'replace', value: { displayName: 'engineering' } }])).body).toMatchObject({ status: '409', scimType: 'uniqueness' });
    });

    it('accepts the lower-case "operations" key and externalId add/remove', async () => {
      const res = await send('PATCH', `/Groups/${group}`, { schemas: [PATCH_OP], operations: [{ op: 'add', path: 'externalId', value: 'grp-sales' }] });
      expect(res.status).toBe(204);
      expect((await send('GET', `/Groups/${group}`)).body.externalId).toBe('grp-sales');
      expect((await patch(group, [{ op: 'remove', path: 'externalId' }])).status).toBe(204);
      expect((await send('GET', `/Groups/${group}`)).body.externalId).toBeUndefined();
    });

    it.each([
      ['no Operations', { schemas: [PATCH_OP] }, 'invalidSyntax'],
      ['an unknown op', { Operations: [{ op: 'move', path: 'members', value: [] }] }, 'invalidSyntax'],
      ['remove without a path', { Operations: [{ op: 'remove' }] }, 'noTarget'],
      ['remove displayName', { Operations: [{ op: 'remove', path: 'displayName' }] }, 'invalidValue'],
      ['a new id', { Operations: [{ op: 'replace', value: { id: '11111111-1111-4111-8111-111111111111' } }] }, 'mutability'],
      ['a bad member filter', { Operations: [{ op: 'remove', path: 'members[value eq ]' }] }, 'invalidFilter'],
      ['a filter on another attribute', { Operations: [{ op: 'remove', path: 'members[display eq "x"]' }] }, 'invalidFilter'],
      ['add with a value filter', { Operations: [{ op: 'add', path: 'members[value eq "x"]', value: [] }] }, 'invalidPath'],
      ['a malformed path', { Operations: [{ op: 'replace', path: 'display name', value: 'x' }] }, 'invalidPath'],
      ['an empty displayName', { Operations: [{ op: 'replace', path: 'displayName', value: ' ' }] }, 'invalidValue'],
      ['members that are not a list of { value }', { Operations: [{ op: 'add', path: 'members', value: ['x'] }] }, 'invalidValue'],
      ['an unknown member next to a good one', { Operations: [{ op: 'add', path: 'members', value: [{ value: 'EVE' }, { value: 'nobody' }] }] }, 'invalidValue'],
    ])('refuses %s (400 %s) and changes nothing', async (_label, body, scimType) => {
      const before = await holders(group);
      const res = await send('PATCH', `/Groups/${group}`, JSON.parse(JSON.stringify(body).replace('EVE', user.eve!)));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType });
      expect(await holders(group)).toEqual(before);
    });
  });

  describe('PATCH paths the Group schema lacks or keeps read-only', () => {
    let group: string;
    beforeAll(async () => {
      group = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Paths', externalId: 'grp-paths', members: [{ value: user.ann }] })).body.id;
    });
    const snapshot = async () => ({
      role: await aerie.sql('select name, role_key, is_active, updated_at from rbac.roles where id = ?', [group]),
      attributes: await aerie.sql('select * from scim.group_attributes where role_id = ?', [group]),
      holders: await holders(group),
      audit: (await auditEvents(aerie, acme)).length,
    });

    it.each([
      ['an attribute the Group schema lacks', [{ op: 'add', path: 'description', value: 'x' }], 'invalidPath'],
      ['an unknown attribute, removed', [{ op: 'remove', path: 'favouriteColour' }], 'invalidPath'],
      ['an unknown key in the pathless form (the rename before it not kept)', [{ op: 'replace', value: { displayName: 'Renamed', description: 'x' } }], 'invalidPath'],
      ["another schema's URN", [{ op: 'replace', path: 'urn:okta:custom:group:1.0:description', value: 'x' }], 'invalidPath'],
      ['the User schema', [{ op: 'replace', path: `${USER}:displayName`, value: 'x' }], 'invalidPath'],
      ['a sub-attribute of displayName', [{ op: 'replace', path: 'displayName.value', value: 'x' }], 'invalidPath'],
      ['an unknown sub-attribute of members', [{ op: 'replace', path: 'members.manager', value: 'x' }], 'invalidPath'],
      ['a value filter on externalId', [{ op: 'replace', path: 'externalId[value eq "x"]', value: 'x' }], 'invalidPath'],
      ['a malformed path', [{ op: 'replace', path: 'members]', value: [] }], 'invalidPath'],
      ['meta', [{ op: 'replace', path: 'meta', value: {} }], 'mutability'],
      ['meta.lastModified', [{ op: 'replace', path: 'meta.lastModified', value: '2020-01-01T00:00:00Z' }], 'mutability'],
      ['meta in the pathless form', [{ op: 'Replace', value: { displayName: 'Renamed', meta: { resourceType: 'Group' } } }], 'mutability'],
      ['removing id', [{ op: 'remove', path: 'id' }], 'mutability'],
      ['a new id', [{ op: 'replace', path: 'id', value: '11111111-1111-4111-8111-111111111111' }], 'mutability'],
      ['members.value', [{ op: 'replace', path: 'members.value', value: 'x' }], 'mutability'],
      ['members[…].display', [{ op: 'replace', path: 'members[value eq "x"].display', value: 'x' }], 'mutability'],
      ['a refused operation after a good one (the add before it not kept)', [{ op: 'add', path: 'members', value: [{ value: '@bob' }] }, { op: 'replace', path: 'meta.created', value: 'x' }], 'mutability'],
    ])('refuses %s (400 %s); the role, its members, its attributes and the audit chain are unchanged', async (_label, ops, scimType) => {
      const before = await snapshot();
      const res = await patch(group, JSON.parse(JSON.stringify(ops).replace('@bob', user.bob!)));
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(res.body).toEqual({ schemas: [ERROR], status: '400', scimType, detail: expect.any(String) });
      expect(await snapshot()).toEqual(before);
    });

    it('still takes the id unchanged and schemas, and changes nothing with them', async () => {
      const before = await snapshot();
      const res = await patch(group, [{ op: 'replace', path: 'id', value: group }, { op: 'Replace', value: { id: group, schemas: [GROUP] } }]);
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect(await snapshot()).toEqual(before);
    });
  });

  describe('filters and projections', () => {
    let eng: string;
    beforeAll(async () => {
      [{ id: eng }] = await aerie.sql("select id from rbac.roles where org_id = ? and name = 'Engineering'", [acme.id]);
    });
    const list = async (filter: string, extra = '') => send('GET', `/Groups?filter=${encodeURIComponent(filter)}${extra}`);

    it.each([
      ['displayName eq "engineering"', ['Engineering']],
      ['displayName sw "ENG"', ['Engineering']],
      ['externalId eq "grp-eng"', ['Engineering']],
      ['externalId eq "GRP-ENG"', []],
      ['displayName sw "E" and members[value eq "ANN"]', ['Engineering']],
      ['members.value eq "BOB"', ['Engineering']],
      ['displayName eq "Engineering" and not (members pr)', []],
      ['displayName eq "Guest" and not (members pr)', ['Guest']],
      [`${GROUP}:displayName eq "Engineering"`, ['Engineering']],
    ])('%s', async (filter, expected) => {
      const res = await list(filter.replace('ANN', user.ann!).replace('BOB', user.bob!));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.Resources.map((g: any) => g.displayName)).toEqual(expected);
    });

    it('answers the membership check Entra ID sends (id and members[value eq], members excluded)', async () => {
      const yes = await list(`id eq "${eng}" and members[value eq "${user.ann}"]`, '&excludedAttributes=members');
      expect(yes.body.totalResults).toBe(1);
      expect(yes.body.Resources[0]).toEqual({ schemas: [GROUP], id: eng, displayName: 'Engineering', externalId: 'grp-eng', meta: expect.any(Object) });
      expect((await list(`id eq "${eng}" and members[value eq "${user.eve}"]`, '&excludedAttributes=members')).body.totalResults).toBe(0);
      expect((await list(`id eq "${eng}"`, '&attributes=displayName')).body.Resources).toEqual([{ schemas: [GROUP], id: eng, displayName: 'Engineering' }]);
      expect((await send('GET', `/Groups/${eng}?excludedAttributes=members`)).body.members).toBeUndefined();
    });

    it.each([
      ['nickName eq "x"'],
      ['displayName eq'],
      ['members[display eq "x"]'],
      ['meta.created gt "not a date"'],
    ])('refuses %s (400 invalidFilter)', async (filter) => {
      const res = await list(filter);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '400', scimType: 'invalidFilter' });
    });

    it('pages with startIndex and count', async () => {
      const all = (await send('GET', '/Groups?excludedAttributes=members')).body;
      const page = (await send('GET', '/Groups?startIndex=2&count=2&excludedAttributes=members')).body;
      expect(page).toMatchObject({ totalResults: all.totalResults, startIndex: 2, itemsPerPage: 2 });
      expect(page.Resources).toEqual(all.Resources.slice(1, 3));
      expect((await send('GET', '/Groups?count=x')).status).toBe(400);
    });
  });

  describe('separation of duties and the Owner', () => {
    let inviter: string;
    let revokers: string;
    beforeAll(async () => {
      inviter = await customRole(aerie, acme.owner, 'acme', 'INVITER', ['org.member.invite']);
      const revoker = await customRole(aerie, acme.owner, 'acme', 'REVOKER', ['org.member.revoke']);
      revokers = revoker;
      for (const m of [user.dee, user.bob, user.owner]) {
        const res = await aerie.request('POST', `/api/org/acme/roles/${inviter}/members`, { token: acme.owner, body: { ConnectedIdId: m } });
        expect(res.status).toBe(201);
      }
    });

    it('reports every member SoD refuses (403, naming them and the pair), seals auth.sod.assignment_blocked for each, and adds nobody', async () => {
      const res = await patch(revokers, [{ op: 'Add', path: 'members', value: [{ value: user.eve }, { value: user.dee }, { value: user.bob }] }]);
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ schemas: [ERROR], status: '403' });
      expect(res.body.detail).toContain(user.dee);
      expect(res.body.detail).toContain(user.bob);
      expect(res.body.detail).toContain('org.member.invite and org.member.revoke');
      expect(res.body.detail).not.toContain(user.eve);
      expect(await holders(revokers)).toEqual([]); // eve was not added either: one transaction
      const blocked = (await auditEvents(aerie, acme, 'auth.sod.assignment_blocked')).filter((e) => e.businessData.roleId === revokers);
      const pairs = [{ a: 'org.member.invite', b: 'org.member.revoke', introduced: true }];
      expect(blocked).toEqual([user.dee, user.bob].map((id) => expect.objectContaining({ actorType: 'system', businessData: expect.objectContaining({ connectedIdId: id, pairs }) })));
      expect((await auditEvents(aerie, acme, 'org.role.assigned')).filter((e) => e.businessData.roleId === revokers)).toEqual([]);
      // The same refusal through POST /Groups: no role is left behind.
      const created = await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Revokers too', members: [{ value: user.dee }] });
      expect(created.status).toBe(201); // an empty role grants nothing: no conflict
      expect((await send('PUT', `/Groups/${revokers}`, { schemas: [GROUP], displayName: 'REVOKER', members: [{ value: user.dee }] })).status).toBe(403);
      expect(await holders(revokers)).toEqual([]);
    });

    it('serialises concurrent PATCHes on one Group (each sees the others)', async () => {
      const group = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Concurrent' })).body.id;
      const names = ['ann', 'bob', 'dee', 'eve'];
      const answers = await Promise.all(names.map((n) => patch(group, [{ op: 'Add', path: 'members', value: [{ value: user[n] }] }])));
      expect(answers.map((a) => a.status)).toEqual([204, 204, 204, 204]);
      expect(await holders(group)).toEqual(ids(...names));
    });

    it('exempts the Owner (spec: Owner and Admin are exempt), and never makes anyone Owner or Admin', async () => {
      const res = await patch(revokers, [{ op: 'add', path: 'members', value: [{ value: user.owner }] }]);
      expect(res.status, JSON.stringify(res.body)).toBe(204);
      expect(await holders(revokers)).toEqual([user.owner]);
      const [m] = await aerie.sql('select role from orgs.memberships where id = ?', [user.owner]);
      expect(m.role).toBe('Owner');
      // Removing the Owner from a Group takes the role, never the membership.
      expect((await patch(revokers, [{ op: 'remove', path: `members[value eq "${user.owner}"]` }])).status).toBe(204);
      expect((await aerie.sql('select role, status from orgs.memberships where id = ?', [user.owner]))[0]).toEqual({ role: 'Owner', status: 'active' });
    });

    it('refuses director appointments (they need a person\'s passkey seal) and deactivated members', async () => {
      const [director] = await aerie.sql("select id from rbac.roles where org_id = ? and role_key = 'ORG_DIRECTOR'", [acme.id]);
      const res = await patch(director.id, [{ op: 'add', path: 'members', value: [{ value: user.eve }] }]);
      expect(res.status).toBe(403);
      expect(res.body.detail).toMatch(/passkey seal/);
      await send('PATCH', `/Users/${user.cid}`, { schemas: [PATCH_OP], Operations: [{ op: 'replace', path: 'active', value: false }] });
      const off = await patch(revokers, [{ op: 'add', path: 'members', value: [{ value: user.cid }] }]);
      expect(off.status).toBe(400);
      expect(off.body.detail).toContain('deactivated');
      expect(await holders(director.id)).toEqual([]);
    });
  });

  describe('other organizations', () => {
    it("never reaches another organization's Groups or members", async () => {
      const [eng] = await aerie.sql("select id from rbac.roles where org_id = ? and name = 'Engineering'", [acme.id]);
      for (const [method, body] of [['GET', undefined], ['PUT', { schemas: [GROUP], displayName: 'Mine' }], ['PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members' }] }], ['DELETE', undefined]] as const) {
        const res = await send(method, `/Groups/${eng.id}`, body, globexToken, 'globex');
        expect(res.status, method).toBe(404);
        expect((await send(method, `/Groups/${eng.id}`, body, globexToken, 'acme')).status).toBe(401);
      }
      expect((await send('GET', `/Groups?filter=${encodeURIComponent(`id eq "${eng.id}"`)}`, undefined, globexToken, 'globex')).body.totalResults).toBe(0);
      expect((await send('GET', `/Groups?filter=${encodeURIComponent(`members[value eq "${user.ann}"]`)}`, undefined, globexToken, 'globex')).body.totalResults).toBe(0);
      expect(await holders(eng.id)).toEqual(ids('ann', 'bob'));
      const globexGroup = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Ops' }, globexToken, 'globex')).body.id;
      const res = await patch(globexGroup, [{ op: 'add', path: 'members', value: [{ value: user.ann }] }], globexToken, 'globex');
      expect(res.status).toBe(400);
      expect(res.body.detail).toContain(`No User ${user.ann}`);
      expect(await holders(globexGroup)).toEqual([]);
    });
  });

  describe('agent roles', () => {
    it('never lists a role kept for agents (AGENT_…), finds it by no filter, and answers 404 on /Groups/{id} for every method, changing nothing', async () => {
      // No route creates an AGENT_ key (rbac answers ROLE_KEY_RESERVED): a Group is created and its key turned into an agent one in SQL.
      const agent = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Research Agents', externalId: 'grp-agents', members: [{ value: user.ann }] })).body.id as string;
      await aerie.sql("update rbac.roles set role_key = 'AGENT_RESEARCH' where id = ?", [agent]);
      const state = async () => ({
        role: await aerie.sql('select name, role_key, is_active, updated_at from rbac.roles where id = ?', [agent]),
        attributes: await aerie.sql('select * from scim.group_attributes where role_id = ?', [agent]),
        holders: await holders(agent),
        audit: (await auditEvents(aerie, acme)).length,
      });
      const before = await state();
      expect(before.role[0]).toMatchObject({ role_key: 'AGENT_RESEARCH', name: 'Research Agents' });
      expect(before.holders).toEqual(ids('ann'));

      const all = await send('GET', '/Groups?count=200');
      expect(all.status).toBe(200);
      expect(all.body.Resources.map((g: any) => g.id)).not.toContain(agent);
      expect(all.body.Resources.map((g: any) => g.displayName)).not.toContain('Research Agents');
      expect(all.body.totalResults).toBe(all.body.Resources.length);
      for (const filter of [`id eq "${agent}"`, 'displayName eq "Research Agents"', 'externalId eq "grp-agents"', `id eq "${agent}" and members[value eq "${user.ann}"]`]) {
        const res = await send('GET', `/Groups?filter=${encodeURIComponent(filter)}`);
        expect(res.status, filter).toBe(200);
        expect(res.body, filter).toMatchObject({ totalResults: 0, Resources: [] });
      }
      const annGroups = await send('GET', `/Groups?filter=${encodeURIComponent(`members[value eq "${user.ann}"]`)}&excludedAttributes=members`);
      expect(annGroups.body.Resources.map((g: any) => g.id)).not.toContain(agent);

      for (const [method, body] of [
        ['GET', undefined],
        ['PUT', { schemas: [GROUP], displayName: 'Taken Over', members: [] }],
        ['PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'add', path: 'members', value: [{ value: user.bob }] }] }],
        ['PATCH', { schemas: [PATCH_OP], Operations: [{ op: 'remove', path: 'members' }] }],
        ['DELETE', undefined],
      ] as const) {
        const res = await send(method, `/Groups/${agent}`, body);
        expect(res.status, method).toBe(404);
        expect(res.body, method).toEqual({ schemas: [ERROR], status: '404', detail: expect.any(String) });
      }
      expect(await state()).toEqual(before);
    });
  });

  it('drops a deleted User from every Group (revocation clears the assignments)', async () => {
    const zed = (await send('POST', '/Users', { schemas: [USER], userName: 'zed@acme.test' })).body.id;
    const group = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Zed and Ann', members: [{ value: zed }, { value: user.ann }] })).body.id;
    expect((await send('DELETE', `/Users/${zed}`)).status).toBe(204);
    expect(await membersOf(group)).toEqual([user.ann]);
    expect((await send('GET', `/Groups?filter=${encodeURIComponent(`members[value eq "${zed}"]`)}`)).body.totalResults).toBe(0);
  });

  describe('DELETE', () => {
    it('takes the role from every member and deletes it; presets are not deleted', async () => {
      const created = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Temp', externalId: 'tmp', members: [{ value: user.ann }] })).body;
      expect((await send('DELETE', `/Groups/${created.id}`)).status).toBe(204);
      expect(await aerie.sql('select id from rbac.roles where id = ?', [created.id])).toEqual([]);
      expect(await holders(created.id)).toEqual([]);
      expect(await aerie.sql('select * from scim.group_attributes where role_id = ?', [created.id])).toEqual([]);
      const events = (await auditEvents(aerie, acme)).filter((e) => e.businessData.roleId === created.id).map((e) => e.eventType);
      expect(events.slice(-3)).toEqual(['org.role.unassigned', 'org.role.deleted', 'org.scim_group.deleted']);
      expect((await send('GET', `/Groups/${created.id}`)).status).toBe(404);
      expect((await send('DELETE', `/Groups/${created.id}`)).status).toBe(404);
      const [guest] = await aerie.sql("select id from rbac.roles where org_id = ? and role_key = 'ORG_GUEST'", [acme.id]);
      const preset = await send('DELETE', `/Groups/${guest.id}`);
      expect(preset.status).toBe(400);
      expect(preset.body.scimType).toBe('mutability');
    });
  });

  it('adds 1,000 members in one PATCH, in one transaction', async () => {
    await aerie.sql(`insert into accounts.accounts (id, email, display_name, created_at, updated_at)
      select gen_random_uuid(), 'bulk' || g || '@acme.test', 'Bulk ' || g, now(), now() from generate_series(1, 1000) g`);
    await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
      select gen_random_uuid(), ?, a.id, 'Member', 'active', now(), now() from accounts.accounts a where a.email like 'bulk%@acme.test'`, [acme.id]);
    const bulk = (await aerie.sql("select m.id from orgs.memberships m join accounts.accounts a on a.id = m.account_id where a.email like 'bulk%@acme.test'")).map((r) => r.id as string);
    const group = (await send('POST', '/Groups', { schemas: [GROUP], displayName: 'Everyone' })).body.id;
    const res = await patch(group, [{ op: 'Add', path: 'members', value: bulk.map((value) => ({ value })) }]);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    expect(await holders(group)).toEqual([...bulk].sort());
    expect((await aerie.sql('select count(*)::int as n from rbac.member_access where membership_id = any(?)', [bulk]))[0].n).toBe(1000);
    expect((await auditEvents(aerie, acme, 'org.role.assigned')).filter((e) => e.businessData.roleId === group)).toHaveLength(1000);
    const listed = await send('GET', `/Groups/${group}`);
    expect(listed.body.members).toHaveLength(1000);
    expect((await patch(group, [{ op: 'remove', path: 'members' }])).status).toBe(204);
    expect(await holders(group)).toEqual([]);
  });
});
