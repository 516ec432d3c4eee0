import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership } from '../apps/helpers.ts';
import { membershipId, sendAnnouncement, uploadAttachment } from './helpers.ts';

const LIMIT = 10 * 1024 * 1024;
const UPLOAD = '/api/v1/notifications/org/attachments';
const download = (id: string) => `/api/v1/notifications/org/attachments/${id}/download`;

describe('notifications: attachments (upload, download)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let admin: string;
  let reader: string;
  let outsider: string;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    admin = await addMembership(aerie, acme, 'admin@acme.test', 'Admin');
    reader = await addMembership(aerie, acme, 'reader@acme.test', 'Member');
    outsider = await addMembership(aerie, acme, 'outsider@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  /** Files stored under the organization's attachment prefix of core.blob (file driver). */
  const storedFiles = (org: TestOrg) => {
    try {
      return readdirSync(join(aerie.dataDir, 'blobs', 'org', org.id, 'notification-attachments'));
    } catch {
      return [];
    }
  };
  const attachmentRows = async () => (await aerie.sql('select count(*)::int as n from notifications.attachments'))[0].n;

  it('stores an upload in core.blob and answers its metadata; audited in the org chain', async () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 31) % 256);
    const res = await uploadAttachment(aerie, admin, 'acme', bytes, { fileName: 'Q3 plan.pdf' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ id: expect.any(String), fileName: 'Q3 plan.pdf', sizeBytes: 300_000, contentType: 'application/pdf' });
    const [row] = await aerie.sql('select org_id, size_bytes, sha256, announcement_id from notifications.attachments where id = ?', [res.body.id]);
    expect(row).toMatchObject({ org_id: acme.id, announcement_id: null });
    expect(Number(row.size_bytes)).toBe(300_000);
    const [event] = await auditEvents(aerie, acme, 'org.notification.attachment_uploaded');
    expect(event.businessData).toMatchObject({ attachmentId: res.body.id, sizeBytes: 300_000, sha256: row.sha256, fileName: 'Q3 plan.pdf' });
  });

  it('takes exactly 10 MB and refuses 10 MB + 1 byte with 413: nothing in core.blob, no row', async () => {
    const exact = await uploadAttachment(aerie, acme.owner, 'acme', new Uint8Array(LIMIT));
    expect([exact.status, exact.body.sizeBytes]).toEqual([201, LIMIT]);
    const files = storedFiles(acme);
    const rows = await attachmentRows();
    const over = await uploadAttachment(aerie, acme.owner, 'acme', new Uint8Array(LIMIT + 1));
    expect([over.status, over.body.error, over.body.limitBytes]).toEqual([413, 'PAYLOAD_TOO_LARGE', LIMIT]);
    expect(storedFiles(acme)).toEqual(files);
    expect(await attachmentRows()).toBe(rows);
  });

  it('refuses a body that is not multipart, or has no file part, with 400 MULTIPART_INVALID', async () => {
    const json = await aerie.request('POST', `${UPLOAD}?orgSlug=acme`, { token: admin, body: { file: 'x' } });
    expect([json.status, json.body.error, json.body.field]).toEqual([400, 'MULTIPART_INVALID', 'file']);
    const octets = await aerie.request('POST', `${UPLOAD}?orgSlug=acme`, { token: admin, body: 'abc', headers: { 'content-type': 'application/octet-stream' } });
    expect([octets.status, octets.body.error]).toEqual([400, 'MULTIPART_INVALID']);
    const missing = await uploadAttachment(aerie, admin, 'acme', new Uint8Array(5), { field: 'document' });
    expect([missing.status, missing.body.error, missing.body.field]).toEqual([400, 'MULTIPART_INVALID', 'file']);
  });

  it('a Member cannot upload (403); another organization is 404; nothing is stored', async () => {
    const rows = await attachmentRows();
    expect((await uploadAttachment(aerie, reader, 'acme', new Uint8Array(5))).status).toBe(403);
    expect((await uploadAttachment(aerie, admin, 'globex', new Uint8Array(5))).status).toBe(404);
    expect(await attachmentRows()).toBe(rows);
    expect(storedFiles(globex)).toEqual([]);
  });

  it("recipients and the org's Owner and Admins download the bytes; everyone else gets 404", async () => {
    const bytes = new Uint8Array(50_000).map((_, i) => (i * 7) % 251);
    const up = await uploadAttachment(aerie, admin, 'acme', bytes);
    expect((await aerie.request('GET', download(up.body.id), { token: reader })).status).toBe(404); // not sent yet
    await sendAnnouncement(aerie, acme, { attachmentIds: [up.body.id], recipientConnectedIds: [await membershipId(aerie, acme, 'reader@acme.test')] }, admin);

    for (const token of [reader, acme.owner, admin]) {
      const res = await aerie.request('GET', download(up.body.id), { token });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body).toEqual({ url: expect.any(String), fileName: 'minutes.pdf', expiresInSeconds: 60 });
      // The URL is on the configured base URL; the test server listens elsewhere.
      const { pathname, search } = new URL(res.body.url);
      const file = await fetch(aerie.url + pathname + search);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-disposition')).toMatch(/^attachment;.*minutes\.pdf/);
      expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    }
    for (const token of [outsider, globex.owner]) {
      const res = await aerie.request('GET', download(up.body.id), { token });
      expect([res.status, res.body.error]).toEqual([404, 'NOT_FOUND']);
    }
    expect((await aerie.request('GET', download(crypto.randomUUID()), { token: admin })).status).toBe(404);
    expect((await aerie.request('GET', download('not-a-uuid'), { token: admin })).status).toBe(400);
  });
});
