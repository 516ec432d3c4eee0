import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { joinOrg } from '../../helpers/org-members.ts';
import { call, fileRows, keyedOrg, startWithOrg, uploaded, type KeyedOrg } from './helpers.ts';

/** `org.setting.block_external_sharing`: blocking closes every open link, each close audited. */
describe('files: the organization policy against link sharing', () => {
  let aerie: TestAerie;
  let acme: KeyedOrg;
  let globex: KeyedOrg;
  const policy = (org: KeyedOrg, token: string, body?: unknown) =>
    aerie.request(body === undefined ? 'GET' : 'PUT', `/api/org/${org.slug}/files/sharing-policy`, { token, ...(body === undefined ? {} : { body }) });

  beforeAll(async () => {
    ({ aerie, org: acme } = await startWithOrg({}));
    globex = await keyedOrg(aerie, 'globex');
  });
  afterAll(() => aerie?.close());

  it('blocking closes every open share link (each audited), refuses new ones with 409, and leaves other organizations alone', async () => {
    const open = [await uploaded(aerie, acme.key, 'a', 'a.txt'), await uploaded(aerie, acme.key, 'b', 'b.txt')];
    const closed = await uploaded(aerie, acme.key, 'c', 'c.txt');
    const theirs = await uploaded(aerie, globex.key, 'g', 'g.txt');
    for (const f of open) await call(aerie, acme.key, 'PATCH', `/files/${f.id}/share`, { mode: 'link_anyone' });
    await call(aerie, globex.key, 'PATCH', `/files/${theirs.id}/share`, { mode: 'link_anyone' });
    expect((await policy(acme, acme.owner)).body).toEqual({ blockExternalSharing: false });

    const res = await policy(acme, acme.owner, { blockExternalSharing: true });
    expect([res.status, res.body]).toEqual([200, { blockExternalSharing: true, closedShares: 2 }]);
    expect((await fileRows(aerie, acme.id)).map((r) => r.share_mode)).toEqual(['restricted', 'restricted', 'restricted']);
    for (const f of open) expect((await aerie.request('GET', `/api/public/share/${f.shareToken}`)).status).toBe(403);
    const events = (await auditEvents(aerie, acme, 'org.file.share_mode_changed')).filter((e) => e.businessData.reason === 'policy');
    expect(events.map((e) => e.businessData.fileId).sort()).toEqual(open.map((f) => f.id).sort());
    expect(events[0]).toMatchObject({ actorType: 'account', businessData: { from: 'link_anyone', to: 'restricted' } });

    const refused = await call(aerie, acme.key, 'PATCH', `/files/${closed.id}/share`, { mode: 'link_anyone' });
    expect([refused.status, refused.body.error]).toEqual([409, 'external_sharing_disabled']);
    expect((await aerie.request('GET', `/api/public/share/${theirs.shareToken}`)).status).toBe(200);
    expect((await fileRows(aerie, globex.id))[0].share_mode).toBe('link_anyone');

    // Blocking again closes nothing more; allowing reopens nothing, but links may be opened again.
    expect((await policy(acme, acme.owner, { blockExternalSharing: true })).body).toEqual({ blockExternalSharing: true, closedShares: 0 });
    expect((await policy(acme, acme.owner, { blockExternalSharing: false })).body).toEqual({ blockExternalSharing: false, closedShares: 0 });
    expect((await fileRows(aerie, acme.id)).every((r) => r.share_mode === 'restricted')).toBe(true);
    expect((await call(aerie, acme.key, 'PATCH', `/files/${open[0].id}/share`, { mode: 'link_anyone' })).body.shareToken).toBe(open[0].shareToken);
  });

  it('needs org.setting.block_external_sharing: a member without it gets 403, another organization 404; a bad body 400', async () => {
    const member = await joinOrg(aerie, acme.owner, acme.slug, 'member@acme.test');
    const denied = await policy(acme, member.token, { blockExternalSharing: true });
    expect([denied.status, denied.body.error, denied.body.required]).toEqual([403, 'PERMISSION_DENIED', 'org.setting.block_external_sharing']);
    expect((await policy(acme, globex.owner, { blockExternalSharing: true })).status).toBe(404);
    expect((await policy(acme, acme.owner, { blockExternalSharing: 'yes' })).status).toBe(400);
    expect((await policy(acme, acme.owner)).body).toEqual({ blockExternalSharing: false });
  });
});
