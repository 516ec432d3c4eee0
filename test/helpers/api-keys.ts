import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { TestAerie, type StartOptions } from './harness.ts';
import type { TestOrg } from './orgs.ts';

/** Folder of the test double plugin that answers for service accounts and app groups. */
export const FIXTURE_PLUGINS = fileURLToPath(new URL('../plugins/keys/fixtures', import.meta.url));

/** Starts Aerie with every plugin plus the directory test double. */
export function startWithDirectory(options: StartOptions = {}): Promise<TestAerie> {
  return TestAerie.start({ ...options, env: { AERIE_PLUGIN_PATHS: FIXTURE_PLUGINS, ...options.env } });
}

/** Creates an API key through the dashboard route; returns its id and value. */
export async function createKey(aerie: TestAerie, org: TestOrg, body: Record<string, unknown> = {}): Promise<{ id: string; value: string; body: any }> {
  const res = await aerie.request('POST', `/api/org/${org.slug}/settings/keys/api-keys`, { token: org.owner, body: { name: 'test key', ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return { id: res.body.id, value: res.body.apiKey, body: res.body };
}

/**
 * Sets a new key's ceiling directly in the database, before its first use (the sealed issue path has
 * its own tests; a ceiling never changes after issue, so Aerie remembers keys once used).
 */
export async function setCeiling(aerie: TestAerie, keyId: string, seconds: number | null): Promise<void> {
  await aerie.sql('update keys.api_keys set max_token_lifetime_seconds = ? where id = ?', [seconds, keyId]);
}

/** `POST /api/m2m/token`. */
export function requestToken(aerie: TestAerie, body: Record<string, unknown>) {
  return aerie.request('POST', '/api/m2m/token', { body });
}

/** Issues a machine token and fails the test unless it is 200. */
export async function tokenFor(aerie: TestAerie, org: TestOrg, apiKey: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await requestToken(aerie, { orgSlug: org.slug, apiKey, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.accessToken as string;
}

/** The decoded header and claims of a compact JWS (no verification). */
export function decodeJwt(token: string): { header: Record<string, any>; claims: Record<string, any> } {
  const [h, p] = token.split('.');
  return { header: JSON.parse(Buffer.from(h, 'base64url').toString()), claims: JSON.parse(Buffer.from(p, 'base64url').toString()) };
}

/** `GET /api/org/{slug}/settings/keys/api-keys` with a bearer token: the machine-token probe route. */
export function listKeys(aerie: TestAerie, slug: string, token: string) {
  return aerie.request('GET', `/api/org/${slug}/settings/keys/api-keys`, { token });
}
