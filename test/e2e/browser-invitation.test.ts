/**
 * The page an invitation mail links to, in a real browser (Debian's chromium through
 * playwright-core): a new person creates the account and accepts, an existing account signs in by
 * emailed code and accepts, someone declines, and a wrong token says so — each checked in the
 * database and on the audit chain afterwards. The page runs under its strict Content-Security-Policy
 * (a violation would stop its script and fail the flows).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { TestAerie } from '../helpers/harness.ts';
import { createOrg } from '../helpers/orgs.ts';
import { invitationMails, invitationToken } from '../helpers/org-members.ts';
import { latestCode } from '../helpers/mail.ts';

const CHROMIUM = '/usr/bin/chromium';

describe.skipIf(!existsSync(CHROMIUM))(`the invitation page in a real browser (needs ${CHROMIUM}: apt-get install chromium)`, () => {
  let aerie: TestAerie;
  let browser: Browser;
  let owner: string;
  let guestRole: string;
  const violations: string[] = [];

  beforeAll(async () => {
    aerie = await TestAerie.start();
    owner = await aerie.signIn('owner@acme.example', 'Olive');
    await createOrg(aerie, owner, 'acme');
    const roles = await aerie.request('GET', '/api/org/acme/roles', { token: owner });
    guestRole = roles.body.Roles.find((r: { RoleKey: string }) => r.RoleKey === 'ORG_GUEST').RoleId;
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-background-networking'] });
  });
  afterAll(async () => {
    await browser?.close();
    await aerie?.close();
  });

  /** Invites `email`, and answers the link the mail carries (pointed at this test server). */
  async function invitationLink(email: string): Promise<string> {
    expect((await aerie.request('POST', '/api/org/acme/members/invite', { token: owner, body: { Email: email, RoleId: guestRole } })).status).toBe(201);
    const mail = invitationMails(aerie, email).at(-1)!.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
    const token = invitationToken(aerie, email);
    expect(mail).toContain(`${aerie.kernel.config.dashboardUrl}/invitation?token=${token}`);
    return `${aerie.url}/invitation?token=${token}`;
  }

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage();
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) violations.push(msg.text());
    });
    const res = await page.goto(url);
    expect(res!.headers()['content-security-policy']).toContain("script-src 'self'");
    return page;
  }

  const membership = async (email: string) => (await aerie.sql(`select m.status, m.role from orgs.memberships m join accounts.accounts a on a.id = m.account_id
    join orgs.organizations o on o.id = m.org_id where o.slug = 'acme' and a.email = ?`, [email]))[0];

  it('lets a new person create the account and accept in one click', async () => {
    const page = await open(await invitationLink('newbie@example.com'));
    expect(await page.textContent('#org')).toBe('Org acme');
    expect(await page.textContent('#role')).toBe('Guest');
    expect(await page.textContent('#email')).toBe('newbie@example.com');
    await page.fill('input[name=displayName]', 'New Bie');
    await page.click('#accept-register');
    await page.waitForSelector('#result[data-state=accepted]');
    expect(await page.textContent('#result')).toContain('You joined Org acme');
    expect(await membership('newbie@example.com')).toEqual({ status: 'active', role: 'Member' });
    expect((await aerie.sql(`select display_name from accounts.accounts where email = 'newbie@example.com'`))[0].display_name).toBe('New Bie');
    await page.close();
  });

  it('lets an existing account sign in with an emailed code and accept', async () => {
    await aerie.signIn('known@example.com');
    const page = await open(await invitationLink('known@example.com'));
    await page.click('#send-code');
    await page.waitForSelector('#result[data-state=code-sent]');
    await page.fill('input[name=code]', latestCode(aerie.dataDir, 'known@example.com'));
    await page.click('#accept-signin');
    await page.waitForSelector('#result[data-state=accepted]');
    expect(await membership('known@example.com')).toEqual({ status: 'active', role: 'Member' });
    await page.close();
  });

  it('declines, and the same link then says the invitation was declined', async () => {
    const link = await invitationLink('nope@example.com');
    const page = await open(link);
    await page.click('#decline');
    await page.waitForSelector('#result[data-state=declined]');
    expect(await aerie.sql(`select status from members.invitations where email = 'nope@example.com'`)).toEqual([{ status: 'declined' }]);
    await page.goto(link);
    expect(await page.getAttribute('#state', 'data-state')).toBe('declined');
    await page.close();
  });

  it('answers 404 with a readable page for a token that was never issued, and escapes what it shows', async () => {
    const page = await browser.newPage();
    const res = await page.goto(`${aerie.url}/invitation?token=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(res!.status()).toBe(404);
    expect(await page.getAttribute('#state', 'data-state')).toBe('unknown');
    expect(await page.content()).not.toContain('<script>alert(1)</script>');
    await page.close();
    await aerie.kernel.auditSealer.drain();
    const events = await aerie.sql(`select event_type from core.audit_events e join orgs.organizations o on o.id = e.org_id where o.slug = 'acme' order by seq`);
    expect(events.map((e) => e.event_type)).toEqual(expect.arrayContaining(['org.member.invited', 'org.member.invitation_accepted', 'org.member.invitation_declined']));
    expect(violations).toEqual([]);
  });
});
