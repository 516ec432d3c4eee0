import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { coreRefs } from '../../../core/core-refs.ts';
import type { BlobStore } from '../../../core/blob/blob.types.ts';
import { call, fetchPresigned, fileRows, keyedOrg, s3Env, startS3, startWithOrg, upload, uploaded, usedBytes, type KeyedOrg, type LocalS3 } from './helpers.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');
const MAX = 10 * 1024 * 1024;

describe.each(['file', 's3'] as const)('files: the file box on the %s driver', (driver) => {
  let aerie: TestAerie;
  let acme: KeyedOrg;
  let globex: KeyedOrg;
  let s3: LocalS3 | undefined;
  const blob = () => aerie.kernel.container.resolve<BlobStore>(coreRefs.blob.id);

  beforeAll(async () => {
    s3 = driver === 's3' ? await startS3() : undefined;
    ({ aerie, org: acme } = await startWithOrg({ env: s3 ? s3Env(s3) : {} }));
    globex = await keyedOrg(aerie, 'globex');
  });
  afterAll(async () => {
    await aerie?.close();
    await s3?.close();
  });

  it('uploads a file streamed as multipart: the answer, the row, the usage, the audit event and the stored bytes agree', async () => {
    expect(blob().driver).toBe(driver);
    const bytes = randomBytes(300_000);
    const file = await uploaded(aerie, acme.key, bytes, 'report.bin');
    expect(file).toMatchObject({ fileName: 'report.bin', contentType: 'application/octet-stream', sizeBytes: bytes.length, sha256: sha256(bytes), deletedAt: null, scope: 'free', shareMode: 'restricted' });
    const [row] = (await fileRows(aerie, acme.id)).filter((r) => r.id === file.id);
    expect(row).toMatchObject({ file_name: 'report.bin', size_bytes: bytes.length, sha256: sha256(bytes), share_token: file.shareToken });
    expect(await usedBytes(aerie, acme.id)).toBe(bytes.length);
    const stored = await blob().get(row.blob_key);
    expect(stored?.size).toBe(bytes.length);
    stored?.body.resume();
    const [event] = (await auditEvents(aerie, acme, 'org.file.uploaded')).filter((e) => e.businessData.fileId === file.id);
    expect(event).toMatchObject({ actorType: 'apiKey', businessData: { fileName: 'report.bin', sizeBytes: bytes.length, sha256: sha256(bytes) } });
    const usage = await call(aerie, acme.key, 'GET', '/storage/usage');
    expect(usage.body).toMatchObject({ usedBytes: bytes.length, limitBytes: 2 * 1024 ** 3, remainingBytes: 2 * 1024 ** 3 - bytes.length, fileCount: 1, trashRetentionDays: 7 });
  });

  it('reads the content type from the bytes; an HTML page declared image/png is stored as octet-stream', async () => {
    const png = await uploaded(aerie, acme.key, PNG, 'pixel.dat', 'text/plain');
    expect(png.contentType).toBe('image/png');
    const html = await uploaded(aerie, acme.key, '<html><script>alert(1)</script></html>', 'x.png', 'image/png');
    expect(html.contentType).toBe('application/octet-stream');
    const text = await uploaded(aerie, acme.key, 'hello', 'notes.txt', 'text/plain; charset=utf-8');
    expect(text.contentType).toBe('text/plain');
  });

  it('downloads through a real 10-minute presigned URL, always as an attachment, with Range; a tampered URL is refused', async () => {
    const bytes = randomBytes(50_000);
    // s3rver canonicalises presigned query strings with `'` left unescaped, so it refuses the RFC 5987
    // `filename*=UTF-8''…` that non-ASCII names need (S3 itself accepts them): ASCII on that driver.
    const name = driver === 's3' ? 'report 2026.bin' : 'données été.bin';
    const file = await uploaded(aerie, acme.key, bytes, name);
    const res = await call(aerie, acme.key, 'GET', `/files/${file.id}/download`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ fileName: name, expiresInMinutes: 10 });
    const got = await fetchPresigned(aerie, res.body.url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect(got.headers.get('content-disposition')).toMatch(/^attachment;/);
    const part = await fetchPresigned(aerie, res.body.url, { headers: { range: 'bytes=10-19' } });
    expect([part.status, part.headers.get('content-range')]).toEqual([206, `bytes 10-19/${bytes.length}`]);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    if (driver === 'file') {
      // Suffix ranges and 416 are the embedded route's own; s3rver does not implement suffix ranges (S3 does).
      const tail = await fetchPresigned(aerie, res.body.url, { headers: { range: 'bytes=-5' } });
      expect(Buffer.from(await tail.arrayBuffer()).equals(bytes.subarray(-5))).toBe(true);
      const past = await fetchPresigned(aerie, res.body.url, { headers: { range: `bytes=${bytes.length}-` } });
      expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${bytes.length}`]);
      await past.arrayBuffer();
    }
    // Flip one character of the signature (S3's `X-Amz-Signature`, the embedded driver's grant MAC after the dot).
    const at = driver === 's3' ? res.body.url.indexOf('X-Amz-Signature=') + 16 : res.body.url.lastIndexOf('.') + 1;
    const tampered = res.body.url.slice(0, at) + (res.body.url[at] === 'a' ? 'b' : 'a') + res.body.url.slice(at + 1);
    expect((await fetchPresigned(aerie, tampered)).status).toBeGreaterThanOrEqual(400);
    const events = (await auditEvents(aerie, acme, 'org.file.download_link_issued')).filter((e) => e.businessData.fileId === file.id);
    expect(events).toHaveLength(1);
  });

  it('keeps non-ASCII names and strips path separators, NUL, controls and bidi overrides', async () => {
    for (const [given, kept] of [['../../etc/passwd', 'passwd'], ['..', 'file'], ['invoice\u202Efdp.exe', 'invoicefdp.exe'], ['报告 №1.pdf', '报告 №1.pdf']]) {
      const res = await upload(aerie, acme.key, 'x', given);
      expect([given, res.status, res.body.fileName]).toEqual([given, 201, kept]);
    }
    // Raw control characters cannot stand in a part header; RFC 5987 `filename*` carries them.
    const boundary = 'b0undary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename*=UTF-8''..%2F..%5Ca%00b%07c%E2%80%AE.txt\r\n\r\nx\r\n--${boundary}--\r\n`;
    const res = await fetch(`${aerie.url}/api/public/v1/files`, { method: 'POST', headers: { 'x-api-key': acme.key, 'content-type': `multipart/form-data; boundary=${boundary}` }, body });
    expect([res.status, (await res.json()).fileName]).toEqual([201, 'abc.txt']);
  });

  it('lists live files and the trash, filtered by name, paged', async () => {
    const other = await keyedOrg(aerie, `list-${driver}`);
    for (const name of ['alpha.txt', 'beta.txt', 'Alphabet.txt']) await uploaded(aerie, other.key, name, name);
    const page = await call(aerie, other.key, 'GET', '/files?q=ALPHA&pageSize=1');
    expect(page.body).toMatchObject({ page: 1, pageSize: 1, total: 2 });
    expect(page.body.items).toHaveLength(1);
    const all = await call(aerie, other.key, 'GET', '/files');
    expect(all.body.items.map((f: any) => f.fileName).sort()).toEqual(['Alphabet.txt', 'alpha.txt', 'beta.txt']);
    await call(aerie, other.key, 'DELETE', `/files/${all.body.items[0].id}`);
    expect((await call(aerie, other.key, 'GET', '/files?trashed=true')).body.items.map((f: any) => f.id)).toEqual([all.body.items[0].id]);
    expect((await call(aerie, other.key, 'GET', '/files?q=%25')).body.total).toBe(0);
  });

  it('trashes (usage frees at once) and restores (usage counts again), both audited', async () => {
    const before = await usedBytes(aerie, acme.id);
    const file = await uploaded(aerie, acme.key, randomBytes(1000));
    const trashed = await call(aerie, acme.key, 'DELETE', `/files/${file.id}`);
    expect(trashed.status).toBe(200);
    expect(trashed.body).toMatchObject({ trashed: true, retentionDays: 7 });
    expect(new Date(trashed.body.restorableUntil).getTime() - Date.now()).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(await usedBytes(aerie, acme.id)).toBe(before);
    expect((await call(aerie, acme.key, 'GET', `/files/${file.id}/download`)).status).toBe(404);
    expect((await call(aerie, acme.key, 'DELETE', `/files/${file.id}`)).status).toBe(404);
    const restored = await call(aerie, acme.key, 'POST', `/files/${file.id}/restore`);
    expect(restored.status).toBe(200);
    expect(restored.body).toMatchObject({ id: file.id, deletedAt: null });
    expect(await usedBytes(aerie, acme.id)).toBe(before + 1000);
    expect((await call(aerie, acme.key, 'POST', `/files/${file.id}/restore`)).status).toBe(404);
    const types = (await auditEvents(aerie, acme, 'org.file.trashed', 'org.file.restored')).filter((e) => e.businessData.fileId === file.id).map((e) => e.eventType);
    expect(types).toEqual(['org.file.trashed', 'org.file.restored']);
  });

  it('shares: link_anyone opens the link, restricted closes it (403), re-opening revives the same token, rotation kills it (404)', async () => {
    const file = await uploaded(aerie, acme.key, PNG, 'pixel.png');
    const open = await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' });
    expect(open.status).toBe(200);
    expect(open.body).toEqual({ id: file.id, fileName: 'pixel.png', mode: 'link_anyone', shareToken: file.shareToken, shareUrl: `${aerie.kernel.config.shareUrl}/f/${file.shareToken}` });
    const viewed = await aerie.request('GET', `/api/public/share/${file.shareToken}`, { headers: { 'user-agent': 'agent/1' } });
    expect(viewed.status).toBe(200);
    expect(viewed.body).toMatchObject({ fileName: 'pixel.png', contentType: 'image/png', sizeBytes: PNG.length, disposition: 'inline', expiresInMinutes: 10 });
    const content = await fetchPresigned(aerie, viewed.body.contentUrl);
    expect(Buffer.from(await content.arrayBuffer()).equals(PNG)).toBe(true);
    expect(content.headers.get('content-disposition')).toMatch(/^inline;/);
    const [view] = (await auditEvents(aerie, acme, 'org.file.share_viewed')).filter((e) => e.businessData.fileId === file.id);
    expect(view.businessData.ipHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(view.businessData)).not.toContain('127.0.0.1');
    expect(JSON.stringify(view.businessData)).not.toContain('agent/1');

    const closed = await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'restricted' });
    expect(closed.body).toMatchObject({ mode: 'restricted', shareToken: file.shareToken, shareUrl: null });
    expect((await aerie.request('GET', `/api/public/share/${file.shareToken}`)).status).toBe(403);
    expect((await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' })).body.shareToken).toBe(file.shareToken);
    expect((await aerie.request('GET', `/api/public/share/${file.shareToken}`)).status).toBe(200);

    const rotated = await call(aerie, acme.key, 'POST', `/files/${file.id}/share/rotate`);
    expect(rotated.body).toMatchObject({ mode: 'link_anyone' });
    expect(rotated.body.shareToken).not.toBe(file.shareToken);
    expect((await aerie.request('GET', `/api/public/share/${file.shareToken}`)).status).toBe(404);
    expect((await aerie.request('GET', `/api/public/share/${rotated.body.shareToken}`)).status).toBe(200);
    const types = (await auditEvents(aerie, acme, 'org.file.share_mode_changed', 'org.file.share_token_rotated')).filter((e) => e.businessData.fileId === file.id).map((e) => e.eventType);
    expect(types).toEqual(['org.file.share_mode_changed', 'org.file.share_mode_changed', 'org.file.share_mode_changed', 'org.file.share_token_rotated']);

    await call(aerie, acme.key, 'DELETE', `/files/${file.id}`);
    expect((await aerie.request('GET', `/api/public/share/${rotated.body.shareToken}`)).status).toBe(404);
  });

  it('never serves an HTML file inline through a share link, whatever it was declared as', async () => {
    const file = await uploaded(aerie, acme.key, '<html><script>alert(1)</script></html>', 'x.png', 'image/png');
    await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' });
    const viewed = await aerie.request('GET', `/api/public/share/${file.shareToken}`);
    expect(viewed.body).toMatchObject({ disposition: 'attachment', contentType: 'application/octet-stream' });
    const content = await fetchPresigned(aerie, viewed.body.contentUrl);
    expect(content.headers.get('content-disposition')).toMatch(/^attachment;/);
    expect(content.headers.get('content-type')).not.toMatch(/html|image/);
  });

  it("treats another organization's ids and share tokens as absent", async () => {
    const file = await uploaded(aerie, acme.key, 'secret', 'secret.txt');
    for (const [method, path, body] of [['GET', `/files/${file.id}/download`], ['DELETE', `/files/${file.id}`], ['POST', `/files/${file.id}/restore`],
      ['PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' }], ['POST', `/files/${file.id}/share/rotate`]] as const) {
      const res = await call(aerie, globex.key, method, path, body);
      expect([path, res.status, res.body.error]).toEqual([path, 404, 'NOT_FOUND']);
    }
    expect((await call(aerie, globex.key, 'GET', '/files')).body.items.map((f: any) => f.id)).not.toContain(file.id);
    expect((await fileRows(aerie, acme.id)).find((r) => r.id === file.id)).toMatchObject({ deleted_at: null, share_mode: 'restricted' });
    for (const token of ['not-a-token', '00000000-0000-4000-8000-000000000000']) expect((await aerie.request('GET', `/api/public/share/${token}`)).status).toBe(404);
  });

  it('answers 401 without a key and for an app-group-scoped key', async () => {
    expect((await aerie.request('GET', '/api/public/v1/files')).status).toBe(401);
    const group = await aerie.request('POST', `/api/org/${acme.slug}/app-groups`, { token: acme.owner, body: { name: `G ${driver}` } });
    const scoped = await createKey(aerie, acme, { appGroupId: group.body.id });
    expect((await call(aerie, scoped.value, 'GET', '/files')).status).toBe(401);
    expect((await upload(aerie, scoped.value, 'x')).status).toBe(401);
  });

  describe('errors', () => {
    const unchanged = async (run: () => Promise<void>) => {
      const rows = (await fileRows(aerie, acme.id)).length;
      const used = await usedBytes(aerie, acme.id);
      await run();
      expect((await fileRows(aerie, acme.id)).length).toBe(rows);
      expect(await usedBytes(aerie, acme.id)).toBe(used);
    };

    it('400 multipart_form_required for a body that is not multipart', () => unchanged(async () => {
      for (const [type, body] of [['application/json', '{"file":"x"}'], ['application/octet-stream', 'abc'], ['multipart/form-data', 'no boundary']]) {
        const res = await fetch(`${aerie.url}/api/public/v1/files`, { method: 'POST', headers: { 'x-api-key': acme.key, 'content-type': type }, body });
        expect([res.status, (await res.json()).error]).toEqual([400, 'multipart_form_required']);
      }
    }));

    it.each([['CR', '\r'], ['LF', '\n'], ['SOH', '\u0001'], ['DEL', '\u007f'], ['ESC', '\u001b']])(
      '400 file_name_invalid (not multipart_form_required) for a file name with %s raw in the part header', (_label, ch) => unchanged(async () => {
        const body = `--XyZ\r\nContent-Disposition: form-data; name="file"; filename="a${ch}b.txt"\r\nContent-Type: text/plain\r\n\r\nhello\r\n--XyZ--\r\n`;
        const res = await fetch(`${aerie.url}/api/public/v1/files`, { method: 'POST', headers: { 'x-api-key': acme.key, 'content-type': 'multipart/form-data; boundary=XyZ' }, body });
        expect(res.status).toBe(400);
        expect(await res.json()).toMatchObject({ error: 'file_name_invalid', field: 'file', message: expect.stringContaining('percent-encoded') });
      }));

    it('400 no_file for a form without a part named file', () => unchanged(async () => {
      const form = new FormData();
      form.append('other', new Blob(['x']), 'x.txt');
      form.append('note', 'hello');
      const res = await fetch(`${aerie.url}/api/public/v1/files`, { method: 'POST', headers: { 'x-api-key': acme.key }, body: form });
      expect([res.status, (await res.json()).error]).toEqual([400, 'no_file']);
    }));

    it('400 file_too_large with limitBytes one byte past 10 MiB; nothing stored', () => unchanged(async () => {
      const res = await upload(aerie, acme.key, Buffer.alloc(MAX + 1));
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ error: 'file_too_large', limitBytes: MAX });
      expect((await uploaded(aerie, acme.key, Buffer.alloc(0), 'empty')).sizeBytes).toBe(0);
      await call(aerie, acme.key, 'DELETE', `/files/${(await call(aerie, acme.key, 'GET', '/files?q=empty')).body.items[0].id}`);
      await aerie.sql("delete from files.files where file_name = 'empty'");
    }));

    it('cuts off a file part that streams 20 MB: 400 file_too_large reaches a client that keeps sending, the connection closed', () => unchanged(async () => {
      const url = new URL(aerie.url);
      const boundary = 'xBOUNDARYx';
      const answer = await new Promise<{ status: number; body: string; sent: number; connection?: string }>((resolve, reject) => {
        let sent = 0;
        const req = httpRequest({ host: url.hostname, port: url.port, method: 'POST', path: '/api/public/v1/files', headers: { 'x-api-key': acme.key, 'content-type': `multipart/form-data; boundary=${boundary}`, 'transfer-encoding': 'chunked' } }, (res) => {
          let body = '';
          res.on('data', (c) => (body += c));
          res.on('end', () => resolve({ status: res.statusCode!, body, sent, connection: res.headers.connection }));
        });
        req.on('error', () => { /* the server closed the socket mid-upload */ });
        req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (sent < 20 * 1024 * 1024) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end(`\r\n--${boundary}--\r\n`);
        };
        pump();
        setTimeout(() => reject(new Error('no answer')), 20_000);
      });
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.body)).toMatchObject({ error: 'file_too_large', limitBytes: MAX });
      expect(answer.connection).toBe('close');
    }));

    it('answers a body declared as 1 KB that streams 20 MB with 400 on the declared bytes, reads no further and closes', () => unchanged(async () => {
      const url = new URL(aerie.url);
      const boundary = 'xLIARx';
      const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="liar.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
      const answer = await new Promise<{ text: string; sent: number }>((resolve, reject) => {
        const socket = connect(Number(url.port), url.hostname);
        let text = '';
        let sent = 0;
        let open = true;
        socket.on('data', (c) => (text += c));
        socket.on('error', () => { open = false; });
        socket.on('close', () => { open = false; resolve({ text, sent }); });
        socket.write(`POST /api/public/v1/files HTTP/1.1\r\nHost: ${url.host}\r\nx-api-key: ${acme.key}\r\ncontent-type: multipart/form-data; boundary=${boundary}\r\ncontent-length: 1024\r\n\r\n`);
        socket.write(head);
        const chunk = Buffer.alloc(64 * 1024, 7);
        const pump = () => {
          while (open && sent < 20 * 1024 * 1024) {
            sent += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
        };
        pump();
        setTimeout(() => reject(new Error('the server kept the connection open')), 20_000);
      });
      // The declared 1 KB is a form cut off before its end (multipart_form_required); the bytes past it
      // are no valid request (the kernel's BAD_REQUEST). Whichever the server answers first, it is a 400
      // envelope, the connection is closed, and it ends well before 20 MB were taken.
      expect(answer.text).toMatch(/^HTTP\/1\.1 400 /);
      expect(answer.text).toMatch(/\r\nConnection: close\r\n/i);
      expect(answer.text).toMatch(/"error":"(multipart_form_required|BAD_REQUEST)"/);
      expect(answer.sent).toBeLessThan(20 * 1024 * 1024);
    }));

    it('403 storage_quota_exceeded with usedBytes and limitBytes', () => unchanged(async () => {
      const limit = 2 * 1024 ** 3;
      const used = await usedBytes(aerie, acme.id);
      await aerie.sql('update files.org_storage set used_bytes = ? where org_id = ?', [limit - 10, acme.id]);
      const res = await upload(aerie, acme.key, Buffer.alloc(11));
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error: 'storage_quota_exceeded', usedBytes: limit - 10, limitBytes: limit });
      await aerie.sql('update files.org_storage set used_bytes = ? where org_id = ?', [used, acme.id]);
    }));

    it('400 invalid_mode for a share mode other than restricted or link_anyone', async () => {
      const file = await uploaded(aerie, acme.key, 'x');
      for (const body of [{ mode: 'public' }, {}, { mode: '' }]) {
        const res = await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, body);
        expect([res.status, res.body.error]).toEqual([400, 'invalid_mode']);
      }
      expect((await fileRows(aerie, acme.id)).find((r) => r.id === file.id).share_mode).toBe('restricted');
    });

    it('409 external_sharing_disabled when the organization blocks link sharing', async () => {
      const file = await uploaded(aerie, acme.key, 'x');
      await aerie.sql('update files.org_storage set block_external_sharing = true where org_id = ?', [acme.id]);
      const res = await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'link_anyone' });
      expect([res.status, res.body.error]).toEqual([409, 'external_sharing_disabled']);
      expect((await call(aerie, acme.key, 'PATCH', `/files/${file.id}/share`, { mode: 'restricted' })).status).toBe(200);
      await aerie.sql('update files.org_storage set block_external_sharing = false where org_id = ?', [acme.id]);
      expect((await fileRows(aerie, acme.id)).find((r) => r.id === file.id).share_mode).toBe('restricted');
    });

    it('409 sealed_attachment when trashing a sealed approval attachment', async () => {
      const file = await uploaded(aerie, acme.key, 'x');
      await aerie.sql('update files.files set sealed = true where id = ?', [file.id]);
      const res = await call(aerie, acme.key, 'DELETE', `/files/${file.id}`);
      expect([res.status, res.body.error]).toEqual([409, 'sealed_attachment']);
      expect((await fileRows(aerie, acme.id)).find((r) => r.id === file.id).deleted_at).toBeNull();
    });
  });
});
