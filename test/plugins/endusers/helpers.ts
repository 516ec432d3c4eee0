import { expect } from 'vitest';
import { TestAerie } from '../../helpers/harness.ts';
import { mailsTo } from '../../helpers/mail.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';
import { createGroup } from '../apps/helpers.ts';

export { addMembership } from '../apps/helpers.ts';

/** `/api/org/{slug}/endusers` */
export const BASE = (slug: string) => `/api/org/${slug}/endusers`;

/** Creates an app group of `org`; answers its id. */
export async function groupOf(aerie: TestAerie, org: TestOrg, name = 'Shop'): Promise<string> {
  return (await createGroup(aerie, org, { name })).id as string;
}

/** `POST /api/org/{slug}/endusers`, failing the test unless 201; answers the end user. */
export async function createEndUser(aerie: TestAerie, org: TestOrg, body: Record<string, unknown>): Promise<any> {
  const res = await aerie.request('POST', BASE(org.slug), { token: org.owner, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The invite token of the newest invite mail to `to`, waiting (polling) for the background job to send it. */
export async function inviteToken(aerie: TestAerie, to: string, count = 1, timeoutMs = 20_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const mails = mailsTo(aerie.dataDir, to).filter((m) => /X-Aerie-Template: enduser-invite/i.test(m));
    if (mails.length >= count) return /^Invite token: (\S+)$/m.exec(mails.at(-1)!)![1];
    if (Date.now() > deadline) throw new Error(`no invite mailed to ${to}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The row of `endusers.end_users` for this address in `org`. */
export async function endUserRow(aerie: TestAerie, org: TestOrg, emailNormalized: string): Promise<any> {
  const [row] = await aerie.sql('select * from endusers.end_users where org_id = ? and email_normalized = ?', [org.id, emailNormalized]);
  return row;
}

/** Two organizations, acme with app groups Shop and Blog, globex with one: the fixture most end-user tests share. */
export interface EndUsersWorld {
  aerie: TestAerie;
  acme: TestOrg;
  globex: TestOrg;
  shop: string;
  blog: string;
  globexGroup: string;
}

/** Starts Aerie and builds {@link EndUsersWorld}. */
export async function startWorld(): Promise<EndUsersWorld> {
  const aerie = await TestAerie.start();
  const acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
  const globex = await signInWithOrg(aerie, 'owner@globex.test', 'globex');
  return { aerie, acme, globex, shop: await groupOf(aerie, acme, 'Shop'), blog: await groupOf(aerie, acme, 'Blog'), globexGroup: await groupOf(aerie, globex, 'Globex app') };
}
