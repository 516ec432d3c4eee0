/**
 * A real browser against Aerie's built-in page `/account/security`: Debian's chromium driven by
 * playwright-core with a CDP virtual authenticator (ctap2, internal, resident key, user
 * verification), over HTTPS (`https://aerie.test`, a throwaway self-signed certificate made with
 * openssl, the name mapped to 127.0.0.1). The page signs in by email code into a `__Host-` cookie
 * session, adds a passkey, binds it as the personal seal and signs a step-up for a sealed route of
 * the `seal-demo` fixture plugin.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, request as httpsRequest, type Server } from 'node:https';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page } from 'playwright-core';
import { Kernel } from '../../core/kernel.ts';
import { verifySealProof, type SealProof } from '../../core/seals/seal-proof.ts';
import { createTestDatabase } from '../helpers/pg-databases.ts';
import { latestCode } from '../helpers/mail.ts';

const CHROMIUM = '/usr/bin/chromium';
const hasOpenssl = (() => {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const fixtures = fileURLToPath(new URL('../fixtures/seal-demo', import.meta.url));
const SEALED = '/api/seal-demo/things/browser/sign';

/** POSTs JSON to `url` at 127.0.0.1 (the test's name mapping), accepting the throwaway certificate. */
function postJson(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: any }> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host: '127.0.0.1', port: target.port, path: target.pathname, method: 'POST', servername: target.hostname, rejectUnauthorized: false,
      headers: { ...headers, host: target.host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)) },
    }, (res) => {
      let text = '';
      res.on('data', (chunk) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
    });
    req.once('error', reject);
    req.end(payload);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

describe.skipIf(!existsSync(CHROMIUM) || !hasOpenssl)(`a real browser on https /account/security (needs ${CHROMIUM} and openssl: apt-get install chromium openssl)`, () => {
  let kernel: Kernel;
  let https: Server;
  let dataDir: string;
  let dropDb: (() => Promise<void>) | undefined;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  let credentialId: string;

  const status = () => page.locator('#status').textContent();
  const sql = <T = any>(query: string, bindings: unknown[] = []) => kernel.db.knex.raw(query, bindings as never[]).then((r: { rows: T[] }) => r.rows);
  const stepUp = async (thing = 'browser') => {
    await page.fill('#stepup-purpose', 'demo.sealed');
    await page.fill('#stepup-subject', `${thing}|sign`);
    await page.fill('#stepup-action', `/api/seal-demo/things/${thing}/sign`);
    await page.fill('#stepup-field', 'stepUpAssertion');
    await page.locator('#stepup-result').evaluate((el) => { el.textContent = ''; });
    await page.click('#stepup-sign');
    await page.waitForFunction(() => document.getElementById('stepup-result')!.textContent !== '');
    return page.evaluate(() => (window as any).aerieSecurity.state.lastResult as { status: number; body: any });
  };

  beforeAll(async () => {
    const port = await freePort();
    base = `https://aerie.test:${port}`;
    dataDir = mkdtempSync(join(tmpdir(), 'aerie-browser-'));
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-days', '1', '-subj', '/CN=aerie.test',
      '-addext', 'subjectAltName=DNS:aerie.test', '-keyout', join(dataDir, 'tls.key'), '-out', join(dataDir, 'tls.crt'),
    ], { stdio: 'ignore' });
    const server = process.env.TEST_DATABASE_URL ? await createTestDatabase(process.env.TEST_DATABASE_URL) : undefined;
    dropDb = server?.drop;
    kernel = await Kernel.boot({
      memoryDatabase: !server, cwd: dataDir,
      env: {
        AERIE_DATA_DIR: dataDir, AERIE_LOG_LEVEL: 'silent', AERIE_BASE_URL: base, AERIE_PLUGINS: 'accounts,seal-demo', AERIE_PLUGIN_PATHS: fixtures,
        ...(server ? { DATABASE_URL: server.url } : {}),
      },
    });
    https = createHttpsServer({ key: readFileSync(join(dataDir, 'tls.key')), cert: readFileSync(join(dataDir, 'tls.crt')) }, kernel.app.callback());
    await new Promise<void>((resolve) => https.listen(port, '127.0.0.1', resolve));
    browser = await chromium.launch({
      executablePath: CHROMIUM, headless: true,
      args: ['--no-sandbox', '--disable-background-networking', '--host-resolver-rules=MAP aerie.test 127.0.0.1', '--ignore-certificate-errors'],
    });
    context = await browser.newContext({ ignoreHTTPSErrors: true });
    page = await context.newPage();
    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable', { enableUI: false });
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
  });

  afterAll(async () => {
    await browser?.close();
    https?.closeAllConnections();
    await new Promise((resolve) => (https ? https.close(resolve) : resolve(undefined)));
    await kernel?.close();
    await dropDb?.();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it('signs in by email code into a __Host- cookie session: Secure, HttpOnly, SameSite=Lax', async () => {
    const response = await page.goto(`${base}/account/security`);
    expect(response!.headers()['content-type']).toBe('text/html; charset=utf-8');
    expect(response!.headers()['content-security-policy']).toContain("script-src 'self'");
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.fill('#email', 'ann@example.com');
    await page.click('#send-code');
    await page.waitForSelector('#code-form:not([hidden])');
    await page.fill('#code', latestCode(dataDir, 'ann@example.com'));
    await page.click('#verify-code');
    await page.waitForSelector('#account:not([hidden])');
    expect(await page.locator('#account-email').textContent()).toBe('ann@example.com');
    const cookies = await context.cookies(base);
    expect(cookies.map((c) => c.name)).toEqual(['__Host-aerie_session']);
    expect(cookies[0]).toMatchObject({ domain: 'aerie.test', path: '/', secure: true, httpOnly: true, sameSite: 'Lax' });
    expect(await page.evaluate(() => document.cookie)).toBe(''); // HttpOnly: invisible to scripts
  });

  it('adds a passkey with the virtual authenticator and binds it as the personal seal', async () => {
    await page.click('#add-passkey');
    await page.waitForSelector('#passkeys li');
    credentialId = (await page.locator('#passkeys li').getAttribute('data-credential-id'))!;
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'aerie.test' });
    expect(Buffer.from(credentials[0].credentialId, 'base64').toString('base64url')).toBe(credentialId);
    const [row] = await sql('select credential_id from accounts.passkeys');
    expect(row.credential_id).toBe(credentialId);

    await page.click('#passkeys li .bind-seal');
    await page.waitForFunction(() => document.getElementById('status')!.textContent!.startsWith('Personal seal bound'));
    expect(await page.locator('#personal-seal').textContent()).toBe(credentialId);
    expect(await page.locator('#passkeys li code').textContent()).toContain('personal seal');
  });

  it('signs a step-up the server accepts, whose proof verifies with only the public key', async () => {
    const result = await stepUp();
    expect(result.status).toBe(200);
    expect(result.body.seal.credentialId).toBe(credentialId);
    expect(await status()).toBe('The server accepted the seal.');
    const [stored] = await sql('select public_key from accounts.passkeys where credential_id = ?', [credentialId]);
    const proof = result.body.proof as SealProof;
    expect(verifySealProof(proof, new Uint8Array(stored.public_key), { origin: base, rpId: 'aerie.test' })).toMatchObject({ ok: true, userVerified: true });
    const flipped = Buffer.from(proof.canonical);
    flipped[20] ^= 0x01;
    expect(verifySealProof({ ...proof, canonical: flipped.toString() }, new Uint8Array(stored.public_key)).ok).toBe(false);
  });

  it('refuses the same assertion replayed with 401 STEPUP_FAILED', async () => {
    const replay = await page.evaluate((path) => {
      const s = (window as any).aerieSecurity;
      return s.send(path, 'stepUpAssertion', s.state.lastAssertion);
    }, SEALED);
    expect(replay.status).toBe(401);
    expect(replay.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'replayed' });
  });

  it('refuses an assertion with a bogus signature (WebAuthn.setResponseOverrideBits)', async () => {
    await cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId, isBogusSignature: true });
    const result = await stepUp('bogus');
    await cdp.send('WebAuthn.setResponseOverrideBits', { authenticatorId, isBogusSignature: false });
    expect(result.status).toBe(401);
    expect(result.body).toMatchObject({ error: 'STEPUP_FAILED', reason: 'verification_failed' });
    expect(await sql("select * from seal_demo.sealed_actions where subject = 'bogus|sign'")).toEqual([]);
    expect((await stepUp('after')).status).toBe(200); // the authenticator is fine again
  });

  it('refuses cookie-authenticated writes without X-CSRF-Token or from a foreign Origin', async () => {
    const noToken = await page.evaluate(async (id) => {
      const res = await fetch('/api/v1/seals', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ credentialId: id }) });
      return { status: res.status, body: await res.json() };
    }, credentialId);
    expect(noToken).toMatchObject({ status: 403, body: { error: 'CSRF_FAILED', reason: 'token' } });
    // A forged Origin cannot come from the browser itself: replay the browser's cookie and CSRF
    // token from outside it, as a hostile client that stole both but not the origin would.
    const csrf = (await page.evaluate(() => sessionStorage.getItem('aerie.csrf')))!;
    const cookie = (await context.cookies(base)).map((c) => `${c.name}=${c.value}`).join('; ');
    const post = (origin: string) => postJson(`${base}/api/v1/seals`, { origin, cookie, 'x-csrf-token': csrf }, { credentialId });
    expect(await post('https://evil.example')).toMatchObject({ status: 403, body: { error: 'CSRF_FAILED', reason: 'origin' } });
    expect((await post(base)).status).toBe(200);
  });

  it('signs out and back in with the passkey', async () => {
    await page.click('#sign-out');
    await page.waitForSelector('#sign-in:not([hidden])');
    await page.click('#passkey-sign-in');
    await page.waitForSelector('#account:not([hidden])');
    expect(await page.locator('#account-email').textContent()).toBe('ann@example.com');
    const [login] = await sql("select method, key_id from accounts.activity_log where event_type = 'auth.login' order by seq desc limit 1");
    expect(login).toEqual({ method: 'passkey', key_id: credentialId });
  });
});
