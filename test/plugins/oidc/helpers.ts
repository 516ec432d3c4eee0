import { expect } from 'vitest';
import * as oidc from 'openid-client';
import type { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { createGroup } from '../apps/helpers.ts';
import { SEND_SIGN_IN_CODE_JOB } from '../../../plugins/endusers/sign-in-code-mail.ts';

/** Where the relying party of these tests is sent back (nothing should listen there: the tests read the redirect, or the browser test answers it; not a port browsers refuse). */
export const REDIRECT_URI = 'http://127.0.0.1:4999/callback';

/** A browser's cookies, by name and path (what the provider's path-scoped cookies need). */
export class CookieJar {
  private readonly cookies = new Map<string, { value: string; path: string }>();

  /** Takes the `Set-Cookie` headers of an answer. */
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(';').map((p) => p.trim());
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      const path = attrs.find((a) => /^path=/i.test(a))?.slice(5) ?? '/';
      const gone = attrs.some((a) => /^expires=Thu, 01 Jan 1970/i.test(a) || /^max-age=0$/i.test(a)) || value === '';
      if (gone) this.cookies.delete(`${name}|${path}`);
      else this.cookies.set(`${name}|${path}`, { value, path });
    }
  }

  /** The `Cookie` header a browser sends to `url`. */
  header(url: string): string {
    const { pathname } = new URL(url);
    return [...this.cookies.entries()].filter(([, c]) => pathname === c.path || pathname.startsWith(c.path.endsWith('/') ? c.path : `${c.path}/`))
      .map(([key, c]) => `${key.split('|')[0]}=${c.value}`).join('; ');
  }

  /** A request as the browser makes it (no redirects followed, cookies sent and kept). */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const headers = new Headers(init.headers);
    const cookie = this.header(url);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.take(res);
    return res;
  }
}

/** An organization with an app group, its Web application (confidential, PKCE on) and one end user. */
export interface SignInWorld {
  org: TestOrg;
  groupId: string;
  appId: string;
  clientId: string;
  clientSecret: string;
  endUserId: string;
  email: string;
  issuer: string;
}

/** Builds {@link SignInWorld} in `slug`: the group's first application gets {@link REDIRECT_URI}. */
export async function signInWorld(aerie: TestAerie, slug: string, email = `ada@${slug}.test`): Promise<SignInWorld> {
  const org = await signInWithOrg(aerie, `owner@${slug}.test`, slug);
  const group = await createGroup(aerie, org, { name: `${slug} shop` });
  const app = group.application;
  const put = await aerie.request('PUT', `/api/org/${slug}/applications/${app.id}`, { token: org.owner, body: { redirectUris: [REDIRECT_URI], postLogoutRedirectUris: [REDIRECT_URI] } });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const endUser = await aerie.request('POST', `/api/org/${slug}/endusers`, { token: org.owner, body: { email, appGroupId: group.id } });
  expect(endUser.status, JSON.stringify(endUser.body)).toBe(201);
  return {
    org, groupId: group.id, appId: app.id, clientId: app.clientKey, clientSecret: app.clientSecret, endUserId: endUser.body.id, email,
    issuer: `${aerie.kernel.config.baseUrl}/api/public/orgs/${slug}`,
  };
}

/** openid-client configured for the world's application through discovery (plain http: a test server). */
export async function relyingParty(world: Pick<SignInWorld, 'issuer' | 'clientId' | 'clientSecret'>): Promise<oidc.Configuration> {
  // The application registered client_secret_basic, the only method Aerie then takes (openid-client defaults to client_secret_post).
  return oidc.discovery(new URL(world.issuer), world.clientId, world.clientSecret, world.clientSecret ? oidc.ClientSecretBasic(world.clientSecret) : oidc.None(), { execute: [oidc.allowInsecureRequests] });
}

/** The newest sign-in code mailed to `to` so far (the mail goes out in a background job: see {@link awaitLoginCode}). */
export function loginCode(aerie: TestAerie, to: string): string {
  const subject = /^Subject: Your sign-in code for .*: (\d{6})$/m;
  const match = subject.exec(mailsTo(aerie.dataDir, to).filter((m) => subject.test(m)).at(-1) ?? '');
  if (!match) throw new Error(`no sign-in code mailed to ${to}`);
  return match[1];
}

/**
 * Waits until no sign-in code mail is queued or being sent (jobs `endusers.send-sign-in-code`
 * created, retrying or active), polling every 50 ms.
 * @throws Error after `timeoutMs` (default 20 s)
 */
export async function signInMailIdle(aerie: TestAerie, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [{ n }] = await aerie.sql<{ n: number }>(
      "select count(*)::int as n from core_jobs.job where name = ? and state in ('created', 'retry', 'active')", [SEND_SIGN_IN_CODE_JOB]);
    if (n === 0) return;
    if (Date.now() > deadline) throw new Error(`${n} sign-in code mails still queued after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The newest sign-in code mailed to `to`, once the queued sign-in mail has gone out. */
export async function awaitLoginCode(aerie: TestAerie, to: string): Promise<string> {
  await signInMailIdle(aerie);
  return loginCode(aerie, to);
}

/** An authorization request as the relying party builds it, with its PKCE verifier and state. */
export async function authorizationRequest(rp: oidc.Configuration, extra: Record<string, string> = {}): Promise<{ url: string; verifier: string; state: string }> {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(rp, {
    redirect_uri: REDIRECT_URI, scope: 'openid email profile offline_access', code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256', state, ...extra,
  });
  return { url: url.href, verifier, state };
}

/**
 * Runs the browser's side of a sign-in by emailed code: authorization request → hosted login →
 * code mailed and typed → back to the provider → redirect to the client with a code.
 * @returns the callback URL the browser lands on
 */
export async function browserSignIn(aerie: TestAerie, jar: CookieJar, authorizeUrl: string, email: string): Promise<URL> {
  const start = await jar.fetch(authorizeUrl);
  expect(start.status, await start.clone().text()).toBe(303);
  const loginPage = new URL(start.headers.get('location')!, aerie.url);
  const page = await jar.fetch(loginPage.href);
  expect(page.status).toBe(200);
  const post = (path: string, body: unknown) => jar.fetch(`${loginPage.href}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const sent = await post('/email-code', { email });
  expect(sent.status, await sent.clone().text()).toBe(200);
  const verified = await post('/email-code/verify', { email, code: await awaitLoginCode(aerie, email) });
  expect(verified.status, await verified.clone().text()).toBe(200);
  let next = (await verified.json()).redirectTo as string;
  for (let hops = 0; hops < 5; hops++) {
    if (next.startsWith(REDIRECT_URI)) return new URL(next);
    const res = await jar.fetch(new URL(next, aerie.url).href);
    expect([302, 303], await res.clone().text()).toContain(res.status);
    next = res.headers.get('location')!;
  }
  throw new Error('the sign-in never came back to the client');
}

/** An access token of the world's end user, through the hosted login by emailed code and the token endpoint. */
export async function endUserAccessToken(aerie: TestAerie, world: SignInWorld): Promise<string> {
  const rp = await relyingParty(world);
  const request = await authorizationRequest(rp);
  const tokens = await oidc.authorizationCodeGrant(rp, await browserSignIn(aerie, new CookieJar(), request.url, world.email), { pkceCodeVerifier: request.verifier, expectedState: request.state });
  return tokens.access_token;
}

/** Adds a single-page application (public client, PKCE) with {@link REDIRECT_URI} to the world's app group; answers it (`clientKey` …). */
export async function createSpa(aerie: TestAerie, world: Pick<SignInWorld, 'org' | 'groupId'>, extra: Record<string, unknown> = {}): Promise<any> {
  const created = await aerie.request('POST', `/api/org/${world.org.slug}/app-groups/${world.groupId}/apps`, {
    token: world.org.owner, body: { name: 'Shop SPA', kind: 'Spa', environment: 'Production', redirectUris: [REDIRECT_URI], ...extra },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body;
}
