import { expect } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { TestOrg } from '../../helpers/orgs.ts';

/** `POST /api/v1/notifications/org/attachments?orgSlug=…` with `bytes` as the multipart part `field`. */
export async function uploadAttachment(aerie: TestAerie, token: string, orgSlug: string, bytes: Uint8Array<ArrayBuffer>, opts: { field?: string; fileName?: string } = {}) {
  const form = new FormData();
  form.append(opts.field ?? 'file', new Blob([bytes], { type: 'application/pdf' }), opts.fileName ?? 'minutes.pdf');
  const res = await fetch(`${aerie.url}/api/v1/notifications/org/attachments?orgSlug=${orgSlug}`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: form });
  return { status: res.status, body: (await res.json()) as any };
}

/** `POST /api/v1/notifications/org/send` as `token` (default the owner), failing the test unless 201. */
export async function sendAnnouncement(aerie: TestAerie, org: TestOrg, body: Record<string, unknown> = {}, token = org.owner): Promise<any> {
  const res = await aerie.request('POST', '/api/v1/notifications/org/send', { token, body: { orgSlug: org.slug, title: 'All hands', body: 'Friday 10:00', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The caller's notifications (`GET /api/v1/notifications`). */
export async function inbox(aerie: TestAerie, token: string): Promise<any[]> {
  const res = await aerie.request('GET', '/api/v1/notifications', { token });
  expect(res.status).toBe(200);
  return res.body.notifications;
}

/** The membership id of `email` in `org`. */
export async function membershipId(aerie: TestAerie, org: TestOrg, email: string): Promise<string> {
  const [row] = await aerie.sql('select m.id from orgs.memberships m join accounts.accounts a on a.id = m.account_id where m.org_id = ? and a.email = ?', [org.id, email]);
  return row.id;
}
