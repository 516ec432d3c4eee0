/**
 * The public API's account-owner routes: a partner's application signs an end user in, then asks with
 * its API key and the end user's access token whether that person has an Aerie account that owns
 * organizations, and (a platform partner only) creates an app group in one of them for them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { createOrg } from '../../helpers/orgs.ts';
import { endUserAccessToken, signInWorld, type SignInWorld } from './helpers.ts';

describe('oidc: owner-status and app groups created for owners', () => {
  let aerie: TestAerie;
  let partner: SignInWorld;
  let key: string;
  let accessToken: string;

  const endUserToken = (world: SignInWorld) => endUserAccessToken(aerie, world);
  const call = (path: string, bearer: string | undefined, body: unknown = {}) =>
    aerie.request('POST', path, { headers: { 'x-api-key': key, ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body });

  beforeAll(async () => {
    aerie = await TestAerie.start({ exactBaseUrl: true, env: { AERIE_PLATFORM_ADMINS: 'root@aerie.test' } });
    partner = await signInWorld(aerie, 'partner', 'ada@example.com');
    key = (await createKey(aerie, partner.org)).value;
    accessToken = await endUserToken(partner);
  });
  afterAll(async () => aerie?.close());

  it('answers owner-status from the token only: no account, then the organizations the account owns', async () => {
    expect((await call('/api/public/v1/orgs/owner-status', undefined)).status).toBe(401);
    expect((await call('/api/public/v1/orgs/owner-status', 'not.a.token')).status).toBe(401);
    expect((await call('/api/public/v1/orgs/owner-status', accessToken)).body).toEqual({ state: 'no_owner_account', email: 'ada@example.com', orgs: [] });
    const ada = await aerie.signIn('ada@example.com');
    const adacoId = await createOrg(aerie, ada, 'adaco');
    const status = await call('/api/public/v1/orgs/owner-status', accessToken, { ownerEmail: 'someone-else@example.com' });
    expect(status.status).toBe(400); // the person comes from the token: a body is refused
    expect((await call('/api/public/v1/orgs/owner-status', accessToken)).body).toEqual({
      state: 'owner_account_exists', email: 'ada@example.com', orgs: [{ id: adacoId, name: expect.any(String), slug: 'adaco', ready: expect.any(Boolean) }],
    });
  });

  it("creates an app group for the owner only with a platform partner's key, and only in an organization they own", async () => {
    const [adaco] = await aerie.sql<{ id: string }>("select id from orgs.organizations where slug = 'adaco'");
    const body = { orgId: adaco.id, name: 'Ada shop', brandColor: '#112233' };
    expect(await call('/api/public/v1/orgs/app-groups/create', accessToken, body)).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
    const admin = await aerie.signIn('root@aerie.test');
    expect((await aerie.request('PUT', '/api/v1/admin/orgs/partner/platform-partner', { token: partner.org.owner, body: { platformPartner: true } })).status).toBe(403);
    expect(await aerie.request('PUT', '/api/v1/admin/orgs/partner/platform-partner', { token: admin, body: { platformPartner: true } })).toMatchObject({ status: 200, body: { slug: 'partner', platformPartner: true } });
    expect(await auditEvents(aerie, partner.org, 'org.platform_partner.changed')).toHaveLength(1);

    // Another organization than one Ada owns.
    expect(await call('/api/public/v1/orgs/app-groups/create', accessToken, { ...body, orgId: partner.org.id })).toMatchObject({ status: 403, body: { error: 'PERMISSION_DENIED' } });
    expect((await call('/api/public/v1/orgs/app-groups/create', undefined, body)).status).toBe(401);
    const created = await call('/api/public/v1/orgs/app-groups/create', accessToken, body);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toEqual({ groupKey: expect.stringMatching(/^appgroup_/), id: expect.any(String), orgId: adaco.id, name: 'Ada shop', description: null, iconUrl: null, brandColor: '#112233' });
    const apps = await aerie.sql('select kind, environment from apps.applications where app_group_id = ?', [created.body.id]);
    expect(apps).toEqual([{ kind: 'Web', environment: 'Development' }]);
    const events = await auditEvents(aerie, { slug: 'adaco' }, 'org.app_group.created');
    expect(events).toHaveLength(1);
  });

  it("refuses another organization's end-user token with this organization's key", async () => {
    const other = await signInWorld(aerie, 'other', 'bo@example.com');
    const otherToken = await endUserToken(other);
    expect((await call('/api/public/v1/orgs/owner-status', otherToken)).status).toBe(401);
  });
});
