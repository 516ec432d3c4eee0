import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { JSDOM } from 'jsdom';
import { TestAerie } from '../../helpers/harness.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { addMembership, createGroup } from './helpers.ts';

/** Real 1×1 images. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const JPEG = Buffer.from('/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=', 'base64');
const WEBP = Buffer.from('UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==', 'base64');
const GIF = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const HOSTILE_SVG = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 10 10" onload="alert(1)">
  <script>alert(2)</script>
  <a href="javascript:alert(3)"><rect id="r" width="10" height="10" fill="#12abef" onclick="alert(4)"/></a>
  <use xlink:href="https://evil.test/x.svg#a"/>
  <image href="https://evil.test/track.png"/>
  <foreignObject><div xmlns="http://www.w3.org/1999/xhtml"><iframe src="https://evil.test"/></div></foreignObject>
  <style>@import url(https://evil.test/x.css);</style>
  <a href="#r"><set attributeName="href" to="javascript:alert(5)"/><animate attributeName="href" values="javascript:alert(6)"/></a>
  <circle cx="5" cy="5" r="2"/>
</svg>`;
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('apps: app-group icons (POST|DELETE /api/org/{slug}/app-groups/{groupId}/icon)', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let globex: TestOrg;
  let member: string;

  const upload = async (groupId: string, body: Buffer, type = 'application/octet-stream', token = acme.owner, slug = 'acme') => {
    const res = await fetch(`${aerie.url}/api/org/${slug}/app-groups/${groupId}/icon`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': type }, body: new Uint8Array(body) });
    return { status: res.status, body: await res.json() };
  };
  const download = async (iconUrl: string) => {
    const res = await fetch(aerie.url + new URL(iconUrl).pathname + new URL(iconUrl).search);
    return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
  };
  const blobFiles = async () => (await aerie.sql('select count(*)::int as n from apps.app_groups where icon_url is not null'))[0].n as number;

  beforeAll(async () => {
    aerie = await TestAerie.start();
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
    member = await addMembership(aerie, acme, 'member@acme.test', 'Member');
  });
  afterAll(() => aerie?.close());

  it.each([['PNG', PNG, 'image/png'], ['JPEG', JPEG, 'image/jpeg'], ['WebP', WEBP, 'image/webp']] as const)(
    'stores a %s as sent, with the type read from its bytes; iconUrl serves it with nosniff and a sandbox', async (_name, bytes, type) => {
      const g = await createGroup(aerie, acme, { name: 'Shop' });
      const res = await upload(g.id, bytes, 'text/plain');
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.iconUrl).toBe(`${aerie.kernel.config.baseUrl}/api/public/app-groups/${g.publicKey}/icon?v=${sha256(bytes).slice(0, 16)}`);
      const [row] = await aerie.sql('select icon_url from apps.app_groups where id = ?', [g.id]);
      expect(row.icon_url).toBe(res.body.iconUrl);
      const got = await download(res.body.iconUrl);
      expect(got.status).toBe(200);
      expect(got.bytes.equals(bytes)).toBe(true);
      expect(got.headers.get('content-type')).toBe(type);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-security-policy')).toBe("default-src 'none'; style-src 'unsafe-inline'; sandbox");
      const [event] = (await auditEvents(aerie, acme, 'org.app_group.icon_uploaded')).filter((e) => e.businessData.appGroupId === g.id);
      expect(event.businessData).toMatchObject({ contentType: type, size: bytes.length, sha256: sha256(bytes), iconUrl: res.body.iconUrl });
    });

  it('cleans an SVG: no script, event handler, foreign object, style or outside link survives; the drawing does', async () => {
    const g = await createGroup(aerie, acme, { name: 'Vector' });
    const res = await upload(g.id, Buffer.from(HOSTILE_SVG), 'image/svg+xml');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const got = await download(res.body.iconUrl);
    expect(got.headers.get('content-type')).toBe('image/svg+xml');
    const text = got.bytes.toString('utf8');
    for (const bad of ['<script', 'onload', 'onclick', 'javascript:', 'evil.test', 'foreignObject', 'iframe', '<style', '<set', '<animate', 'alert']) expect(text).not.toContain(bad);
    const doc = new JSDOM(text, { contentType: 'image/svg+xml' }).window.document;
    expect(doc.documentElement.localName).toBe('svg');
    expect(doc.querySelectorAll('rect, circle').length).toBe(2);
    expect(doc.querySelector('a[href="#r"]')).not.toBeNull();
    const [event] = (await auditEvents(aerie, acme, 'org.app_group.icon_uploaded')).filter((e) => e.businessData.appGroupId === g.id);
    expect(event.businessData).toMatchObject({ contentType: 'image/svg+xml', sha256: sha256(got.bytes) });
  });

  it('goes by the bytes: a PNG declared as SVG is stored as a PNG', async () => {
    const g = await createGroup(aerie, acme, { name: 'Renamed' });
    const res = await upload(g.id, PNG, 'image/svg+xml');
    expect(res.status).toBe(200);
    expect((await download(res.body.iconUrl)).headers.get('content-type')).toBe('image/png');
  });

  const refused: Array<[string, Buffer, string]> = [
    ['a text file', Buffer.from('just some text, not an image\n'), 'image/png'],
    ['a GIF', GIF, 'image/gif'],
    ['an HTML page', Buffer.from('<html><body><script>alert(1)</script></body></html>'), 'image/svg+xml'],
    ['XML that is not SVG', Buffer.from('<?xml version="1.0"?><note><svg/></note>'), 'image/svg+xml'],
    ['broken SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>'), 'image/svg+xml'],
    ['an empty body', Buffer.alloc(0), 'image/png'],
  ];
  it.each(refused)('refuses %s with 400 ICON_TYPE_UNSUPPORTED, storing nothing', async (_label, bytes, type) => {
    const g = await createGroup(aerie, acme, { name: 'Plain', iconUrl: 'https://cdn.acme.test/i.png' });
    const res = await upload(g.id, bytes, type);
    expect([res.status, res.body.error]).toEqual([400, 'ICON_TYPE_UNSUPPORTED']);
    const [row] = await aerie.sql('select icon_url from apps.app_groups where id = ?', [g.id]);
    expect(row.icon_url).toBe('https://cdn.acme.test/i.png');
    expect((await download(`https://x/api/public/app-groups/${g.publicKey}/icon`)).status).toBe(404);
    expect((await auditEvents(aerie, acme, 'org.app_group.icon_uploaded')).filter((e) => e.businessData.appGroupId === g.id)).toEqual([]);
  });

  it('refuses 2 MiB + 1 byte with 413 PAYLOAD_TOO_LARGE and takes exactly 2 MiB', async () => {
    const g = await createGroup(aerie, acme, { name: 'Big' });
    const big = Buffer.concat([PNG, Buffer.alloc(2 * 1024 * 1024 + 1 - PNG.length)]);
    const over = await upload(g.id, big, 'image/png');
    expect([over.status, over.body.error, over.body.limitBytes]).toEqual([413, 'PAYLOAD_TOO_LARGE', 2 * 1024 * 1024]);
    const [row] = await aerie.sql('select icon_url from apps.app_groups where id = ?', [g.id]);
    expect(row.icon_url).toBeNull();
    const exact = await upload(g.id, big.subarray(0, 2 * 1024 * 1024), 'image/png');
    expect(exact.status).toBe(200);
  });

  it('replaces an icon; DELETE removes the stored bytes and clears iconUrl, audited', async () => {
    const g = await createGroup(aerie, acme, { name: 'Swap' });
    const first = await upload(g.id, PNG);
    const second = await upload(g.id, JPEG);
    expect(second.body.iconUrl).not.toBe(first.body.iconUrl);
    expect((await download(first.body.iconUrl)).headers.get('content-type')).toBe('image/jpeg');
    const del = await aerie.request('DELETE', `/api/org/acme/app-groups/${g.id}/icon`, { token: acme.owner });
    expect([del.status, del.body.iconUrl]).toEqual([200, null]);
    expect((await download(second.body.iconUrl)).status).toBe(404);
    const [row] = await aerie.sql('select icon_url from apps.app_groups where id = ?', [g.id]);
    expect(row.icon_url).toBeNull();
    const [event] = (await auditEvents(aerie, acme, 'org.app_group.icon_deleted')).filter((e) => e.businessData.appGroupId === g.id);
    expect(event.businessData).toMatchObject({ publicKey: g.publicKey, previousIconUrl: second.body.iconUrl });
  });

  it('deleting the group deletes its icon', async () => {
    const g = await createGroup(aerie, acme, { name: 'Gone' });
    const up = await upload(g.id, PNG);
    expect((await aerie.request('DELETE', `/api/org/acme/app-groups/${g.id}`, { token: acme.owner })).status).toBe(204);
    expect((await download(up.body.iconUrl)).status).toBe(404);
  });

  it("answers 404 for another organization's group and unknown ids, 403 without the scope, 404 for an unknown icon key; nothing stored", async () => {
    const theirs = await createGroup(aerie, globex, { name: 'Globex' });
    const before = await blobFiles();
    for (const id of [theirs.id, '00000000-0000-4000-8000-000000000000', 'nope']) {
      const up = await upload(id, PNG);
      expect([id, up.status, up.body.error]).toEqual([id, 404, 'NOT_FOUND']);
      const del = await aerie.request('DELETE', `/api/org/acme/app-groups/${id}/icon`, { token: acme.owner });
      expect([id, del.status]).toEqual([id, 404]);
    }
    const mine = await createGroup(aerie, acme, { name: 'Mine' });
    const denied = await upload(mine.id, PNG, 'image/png', member);
    expect([denied.status, denied.body.required]).toEqual([403, 'org.app_group.update']);
    const outsider = await upload(theirs.id, PNG, 'image/png', globex.owner, 'acme');
    expect(outsider.status).toBe(404);
    expect(await blobFiles()).toBe(before);
    expect((await download(`https://x/api/public/app-groups/${theirs.publicKey}/icon`)).status).toBe(404);
    expect((await download('https://x/api/public/app-groups/appgroup_nope/icon')).status).toBe(404);
  });
});
