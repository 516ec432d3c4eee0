import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership, createGroup } from '../apps/helpers.ts';
import { inbox } from './helpers.ts';

const SETTINGS = (slug: string) => `/api/org/${slug}/settings/notifications`;

describe('notifications: organization settings, test notification, app-group notices', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let admin: string;
  let member: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  it('answers the defaults, replaces them (validated, audited), and keeps them to members without the scope', async () => {
    expect((await aerie.request('GET', SETTINGS('acme'), { token: admin })).body).toEqual({ emailCategories: ['Org'], digest: 'off' });
    const put = await aerie.request('PUT', SETTINGS('acme'), { token: admin, body: { emailCategories: ['Org', 'System'], digest: 'weekly' } });
    expect([put.status, put.body]).toEqual([200, { emailCategories: ['Org', 'System'], digest: 'weekly' }]);
    expect((await aerie.request('GET', SETTINGS('acme'), { token: acme.owner })).body).toEqual({ emailCategories: ['Org', 'System'], digest: 'weekly' });
    const [event] = await auditEvents(aerie, acme, 'org.notification.settings_updated');
    expect(event.businessData).toEqual({ emailCategories: ['Org', 'System'], digest: 'weekly' });

    const bad = await aerie.request('PUT', SETTINGS('acme'), { token: admin, body: { emailCategories: ['Spam'], digest: 'off' } });
    expect([bad.status, bad.body.error]).toEqual([400, 'VALIDATION_FAILED']);
    const hourly = await aerie.request('PUT', SETTINGS('acme'), { token: admin, body: { emailCategories: [], digest: 'hourly' } });
    expect([hourly.status, hourly.body.field]).toEqual([400, 'digest']);
    const denied = await aerie.request('PUT', SETTINGS('acme'), { token: member, body: { emailCategories: [], digest: 'off' } });
    expect([denied.status, denied.body.required]).toEqual([403, 'org.notification.update']);
  });

  it('sends the caller a test notification (System, of the organization)', async () => {
    const res = await aerie.request('POST', `${SETTINGS('acme')}/test`, { token: admin });
    expect([res.status, res.body]).toEqual([201, { count: 1 }]);
    expect((await inbox(aerie, admin))[0]).toMatchObject({ category: 'System', title: 'Test notification', orgId: acme.id, announcementId: null });
    expect(await inbox(aerie, acme.owner)).not.toContainEqual(expect.objectContaining({ title: 'Test notification' }));
  });

  it("tells the organization's Owner, and only the Owner, when an app group is created", async () => {
    const group = await createGroup(aerie, acme, { name: 'Portal' }, admin);
    let notice: any;
    for (let i = 0; i < 50 && !notice; i++) {
      notice = (await inbox(aerie, acme.owner)).find((n) => n.title === 'App group created');
      if (!notice) await new Promise((r) => setTimeout(r, 20));
    }
    expect(notice).toMatchObject({ category: 'System', orgId: acme.id, link: `/app-groups/${group.id}`, announcementId: null });
    expect((await inbox(aerie, admin)).map((n) => n.title)).not.toContain('App group created');
  });
});
