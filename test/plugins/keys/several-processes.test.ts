import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { Kernel } from '../../../core/kernel.ts';
import type { KeyStatusService } from '../../../plugins/keys/key-status.service.ts';
import { createKey, FIXTURE_PLUGINS, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/**
 * Two Aerie processes (kernels) on one PostgreSQL server: a revocation or rotation made through one
 * cuts tokens off on the other, through LISTEN/NOTIFY, and through the database while the listener
 * is down. Only meaningful against a server (`TEST_DATABASE_URL`); embedded PGlite is one process.
 */
describe.skipIf(!process.env.TEST_DATABASE_URL)('keys: revocation across processes on one PostgreSQL server', () => {
  let first: TestAerie;
  let second: Kernel;
  let secondUrl: string;
  let secondDir: string;
  let acme: TestOrg;

  const probe = async (token: string) =>
    (await fetch(`${secondUrl}/api/org/acme/settings/keys/api-keys`, { headers: { authorization: `Bearer ${token}` } })).status;
  /** Milliseconds until the second process refuses `token` (polling), or -1 after 3 s. */
  const refusedAfter = async (token: string, since: number) => {
    while (Date.now() - since < 3000) {
      if ((await probe(token)) === 401) return Date.now() - since;
      await new Promise((r) => setTimeout(r, 5));
    }
    return -1;
  };
  const revoke = (id: string) => first.request('DELETE', `/api/org/acme/settings/keys/api-keys/${id}`, { token: acme.owner });
  const keyStatus = () => second.container.resolve<KeyStatusService>('keys.keyStatus');

  beforeAll(async () => {
    first = await startWithDirectory();
    acme = await signInWithOrg(first, 'owner@acme.test', 'acme');
    secondDir = mkdtempSync(join(tmpdir(), 'aerie-second-'));
    second = await Kernel.boot({
      cwd: secondDir,
      env: {
        AERIE_DATA_DIR: secondDir, AERIE_LOG_LEVEL: 'silent', AERIE_PLUGIN_PATHS: FIXTURE_PLUGINS,
        DATABASE_URL: first.kernel.config.databaseUrl!, AERIE_MASTER_KEY: first.masterKey(),
      },
    });
    secondUrl = (await second.listen(0, '127.0.0.1')).url;
  });
  afterAll(async () => {
    await second?.close();
    rmSync(secondDir, { recursive: true, force: true });
    await first?.close();
  });

  it('a revocation through one process cuts the token off on the other at once', async () => {
    expect(keyStatus().synced).toBe(true);
    const key = await createKey(first, acme, { scopes: ['org.api_key.list'] });
    const token = await tokenFor(first, acme, key.value);
    expect(await probe(token)).toBe(200);
    const since = Date.now();
    expect((await revoke(key.id)).status).toBe(204);
    const lag = await refusedAfter(token, since);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(1000);
  });

  it('the old value of a key rotated, or a key revoked, through one process stops issuing on the other', async () => {
    const issueOnSecond = async (apiKey: string) =>
      (await fetch(`${secondUrl}/api/m2m/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgSlug: 'acme', apiKey }) })).status;
    const key = await createKey(first, acme);
    expect(await issueOnSecond(key.value)).toBe(200); // now remembered by the second process
    const rotated = await first.request('POST', `/api/org/acme/settings/keys/api-keys/${key.id}/rotate`, { token: acme.owner });
    let since = Date.now();
    while ((await issueOnSecond(key.value)) === 200 && Date.now() - since < 3000) await new Promise((r) => setTimeout(r, 5));
    expect(Date.now() - since).toBeLessThan(1000);
    expect(await issueOnSecond(key.value)).toBe(401);
    expect(await issueOnSecond(rotated.body.apiKey)).toBe(200);
    since = Date.now();
    await revoke(key.id);
    while ((await issueOnSecond(rotated.body.apiKey)) === 200 && Date.now() - since < 3000) await new Promise((r) => setTimeout(r, 5));
    expect(Date.now() - since).toBeLessThan(1000);
    expect(await issueOnSecond(rotated.body.apiKey)).toBe(401);
  });

  it('a signing-key rotation through one process refuses old tokens on the other', async () => {
    const key = await createKey(first, acme, { scopes: ['org.api_key.list'] });
    const token = await tokenFor(first, acme, key.value);
    expect(await probe(token)).toBe(200);
    const since = Date.now();
    expect((await first.request('POST', '/api/org/acme/settings/keys/signing-key/rotate', { token: acme.owner })).status).toBe(200);
    expect(await refusedAfter(token, since)).toBeGreaterThanOrEqual(0);
    expect(await probe(await tokenFor(first, acme, key.value))).toBe(200);
  });

  it('with the listener down, asks the database on every request; then recovers', async () => {
    const keys = await Promise.all([1, 2].map(() => createKey(first, acme, { scopes: ['org.api_key.list'] })));
    const tokens = await Promise.all(keys.map((k) => tokenFor(first, acme, k.value)));
    await first.sql(`select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and query = 'LISTEN aerie_keys'`);
    for (let i = 0; i < 100 && keyStatus().synced; i++) await new Promise((r) => setTimeout(r, 10));
    expect(keyStatus().synced).toBe(false);
    expect(await probe(tokens[0])).toBe(200);
    await revoke(keys[0].id);
    expect(await probe(tokens[0])).toBe(401);
    // Remembered keys are not trusted either while out of sync.
    const issued = await fetch(`${secondUrl}/api/m2m/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ orgSlug: 'acme', apiKey: keys[0].value }) });
    expect(issued.status).toBe(401);

    for (let i = 0; i < 300 && !keyStatus().synced; i++) await new Promise((r) => setTimeout(r, 20));
    expect(keyStatus().synced).toBe(true);
    expect(await probe(tokens[0])).toBe(401);
    expect(await probe(tokens[1])).toBe(200);
    const since = Date.now();
    await revoke(keys[1].id);
    const lag = await refusedAfter(tokens[1], since);
    expect(lag).toBeGreaterThanOrEqual(0);
    expect(lag).toBeLessThan(1000);
  });
});
