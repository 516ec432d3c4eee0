import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { TestAerie, StartOptions } from '../../helpers/harness.ts';
import { TestAerie as Aerie } from '../../helpers/harness.ts';
import { createKey } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

// A local S3-compatible server that checks SigV4 signatures.
const S3rver = createRequire(import.meta.url)('@20minutes/s3rver') as new (options: object) => { run(): Promise<{ port: number }>; close(): Promise<void> };
export const S3_BUCKET = 'aerie-files';

/** A running local S3 server with its endpoint; `close` stops it and removes its folder. */
export interface LocalS3 {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts `@20minutes/s3rver` on a free port with one bucket; the SDK's default chain gets its credentials. */
export async function startS3(): Promise<LocalS3> {
  const dir = mkdtempSync(join(tmpdir(), 'aerie-files-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: S3_BUCKET }] });
  const { port } = await server.run();
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Aerie's environment for the S3 driver on `s3`. */
export function s3Env(s3: LocalS3): Record<string, string> {
  return { AERIE_BLOB_DRIVER: 's3', AERIE_S3_BUCKET: S3_BUCKET, AERIE_S3_ENDPOINT: s3.endpoint, AERIE_S3_REGION: 'us-east-1', AERIE_S3_FORCE_PATH_STYLE: 'true' };
}

/** An organization with an organization-wide API key. */
export interface KeyedOrg extends TestOrg {
  key: string;
}

/** Starts Aerie and makes an organization with an organization-wide key. */
export async function startWithOrg(options: StartOptions, slug = 'acme'): Promise<{ aerie: TestAerie; org: KeyedOrg }> {
  const aerie = await Aerie.start(options);
  return { aerie, org: await keyedOrg(aerie, slug) };
}

export async function keyedOrg(aerie: TestAerie, slug: string): Promise<KeyedOrg> {
  const org = await signInWithOrg(aerie, `owner@${slug}.test`, slug);
  return { ...org, key: (await createKey(aerie, org)).value };
}

/** `POST /api/public/v1/files` with one `file` part. */
export async function upload(aerie: TestAerie, key: string, bytes: Buffer | string, fileName = 'a.bin', type = 'application/octet-stream') {
  const form = new FormData();
  form.append('file', new Blob([typeof bytes === 'string' ? bytes : new Uint8Array(bytes)], { type }), fileName);
  const res = await fetch(`${aerie.url}/api/public/v1/files`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
  return { status: res.status, body: await res.json() };
}

/** A file-box request with the key. */
export function call(aerie: TestAerie, key: string, method: string, path: string, body?: unknown) {
  return aerie.request(method, `/api/public/v1${path}`, { headers: { 'x-api-key': key }, body });
}

/** Uploads and fails the test unless 201; answers the file. */
export async function uploaded(aerie: TestAerie, key: string, bytes: Buffer | string, fileName?: string, type?: string): Promise<any> {
  const res = await upload(aerie, key, bytes, fileName, type);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** GETs a presigned URL: the embedded driver's point at the configured base URL, here the test server. */
export function fetchPresigned(aerie: TestAerie, url: string, init?: RequestInit): Promise<Response> {
  const base = aerie.kernel.config.baseUrl;
  return fetch(url.startsWith(base) ? aerie.url + url.slice(base.length) : url, init);
}

/** Rows of `files.files` of an organization. */
export function fileRows(aerie: TestAerie, orgId: string): Promise<any[]> {
  return aerie.sql('select * from files.files where org_id = ? order by uploaded_at', [orgId]);
}

/** `used_bytes` of the organization's storage row (0 without one). */
export async function usedBytes(aerie: TestAerie, orgId: string): Promise<number> {
  const [row] = await aerie.sql('select used_bytes from files.org_storage where org_id = ?', [orgId]);
  return Number(row?.used_bytes ?? 0);
}
