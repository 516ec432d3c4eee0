/**
 * The sign-in events `endusers.signIn` writes for the OpenID provider and the hosted login
 * (docs/api/endusers.md "Sign-in events"): a proof for an end user who may not sign in is a failure,
 * not a sign-in; failures are committed on their own; anonymous callers cannot fill a chain with
 * them beyond 60 per organization and IP address per 10 minutes.
 */
import 'reflect-metadata';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { endUsersRefs, type EndUserSignInService } from '../../../plugins/endusers/api.ts';
import { SIGN_IN_FAILURE_EVENTS_PER_IP } from '../../../plugins/endusers/sign-in-events.ts';
import { createEndUser, startWorld, type EndUsersWorld } from './helpers.ts';

describe('endusers: sign-in events', () => {
  let world: EndUsersWorld;
  let signIn: EndUserSignInService;

  beforeAll(async () => {
    world = await startWorld();
    signIn = world.aerie.kernel.container.resolve<EndUserSignInService>(endUsersRefs.signIn.id);
  });
  afterAll(() => world?.aerie.close());

  const failures = async (org: TestOrg) => (await auditEvents(world.aerie, org, 'org.end_user.sign_in_failed')).map((e) => e.businessData);

  it('records a proof for an end user without access to the group as access_denied, and changes nothing else', async () => {
    const ann = await createEndUser(world.aerie, world.acme, { email: 'Ann@Example.test', appGroupId: world.shop });
    const before = (await auditEvents(world.aerie, world.acme)).length;
    expect(await signIn.signedIn(world.acme.id, ann.id, world.blog, 'email_code', 'client_blog', { ip: '203.0.113.7' })).toBeUndefined();
    expect((await auditEvents(world.aerie, world.acme)).slice(before).map((e) => [e.eventType, e.businessData])).toEqual([
      ['org.end_user.sign_in_failed', { appGroupId: world.blog, clientKey: 'client_blog', method: 'email_code', reason: 'access_denied', endUserId: ann.id, ip: '203.0.113.7' }],
    ]);
    // Still Pending: a refused proof verifies nothing.
    expect(await world.aerie.sql('select status, email_verified_at from endusers.end_users where id = ?', [ann.id])).toEqual([{ status: 'Pending', email_verified_at: null }]);

    const signedIn = await signIn.signedIn(world.acme.id, ann.id, world.shop, 'social', 'client_shop', { ip: '203.0.113.7', provider: 'google' });
    expect(signedIn).toMatchObject({ id: ann.id, email: 'Ann@Example.test', emailVerified: true });
    expect((await auditEvents(world.aerie, world.acme, 'org.end_user.signed_in')).at(-1)!.businessData).toEqual({
      endUserId: ann.id, appGroupId: world.shop, clientKey: 'client_shop', method: 'social', provider: 'google', email: 'ann@example.test', ip: '203.0.113.7',
    });
  });

  it('records an end user of another organization as an unknown account, on the calling organization only', async () => {
    const gus = await createEndUser(world.aerie, world.globex, { email: 'gus@globex.test', appGroupId: world.globexGroup });
    const globexBefore = await failures(world.globex);
    expect(await signIn.signedIn(world.acme.id, gus.id, world.shop, 'passkey', 'client_shop', {})).toBeUndefined();
    expect((await failures(world.acme)).at(-1)).toEqual({ appGroupId: world.shop, clientKey: 'client_shop', method: 'passkey', reason: 'unknown_account' });
    expect(await failures(world.globex)).toEqual(globexBefore);
  });

  it('keeps only an address end users may have, normalized, and never more than the attempt said', async () => {
    expect(await signIn.signInFailed(world.acme.id, { appGroupId: world.shop, method: 'email_code', reason: 'unknown_account', email: 'Zoë@Example.TEST', ip: '198.51.100.1' })).toBe(true);
    expect(await signIn.signInFailed(world.acme.id, { appGroupId: world.shop, method: 'email_code', reason: 'unknown_account', email: 'not an address', ip: '198.51.100.1' })).toBe(true);
    expect((await failures(world.acme)).slice(-2)).toEqual([
      { appGroupId: world.shop, method: 'email_code', reason: 'unknown_account', email: 'zoë@example.test', ip: '198.51.100.1' },
      { appGroupId: world.shop, method: 'email_code', reason: 'unknown_account', ip: '198.51.100.1' },
    ]);
  });

  it(`records at most ${SIGN_IN_FAILURE_EVENTS_PER_IP.points} failures per organization and IP address per window`, async () => {
    const ip = '192.0.2.55';
    const attempt = { appGroupId: world.shop, clientKey: 'client_shop', method: 'email_code' as const, reason: 'invalid_code' as const, ip };
    const before = (await failures(world.acme)).length;
    const written = [];
    for (let i = 0; i <= SIGN_IN_FAILURE_EVENTS_PER_IP.points; i++) written.push(await signIn.signInFailed(world.acme.id, attempt));
    expect(written.filter(Boolean).length).toBe(SIGN_IN_FAILURE_EVENTS_PER_IP.points);
    expect(written.at(-1)).toBe(false);
    expect((await failures(world.acme)).length - before).toBe(SIGN_IN_FAILURE_EVENTS_PER_IP.points);
    // Another address, and the same address at another organization, are counted apart.
    expect(await signIn.signInFailed(world.acme.id, { ...attempt, ip: '192.0.2.56' })).toBe(true);
    expect(await signIn.signInFailed(world.globex.id, { ...attempt, appGroupId: world.globexGroup })).toBe(true);
  });
});
