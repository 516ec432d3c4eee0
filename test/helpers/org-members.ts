import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { TestAerie, type StartOptions, type TestResponse } from './harness.ts';
import { mailsTo } from './mail.ts';

const plugins = fileURLToPath(new URL('../plugins/', import.meta.url));

/**
 * Helpers for suites that need organization members: the members and rbac suites (invite, join,
 * roles, assignments).
 */

/** Folder of the members test fixture plugin (verified domains, director hook). */
export const MEMBERS_FIXTURE = join(plugins, 'members', 'fixtures');
/** Folder of the rbac test fixture plugin (scopes of plugins not built yet, checking routes). */
export const RBAC_FIXTURE = join(plugins, 'rbac', 'fixtures');

/**
 * Starts Aerie with accounts, orgs, rbac, members and both fixture plugins. Sessions live 30 days
 * idle, so tests can move the clock past an invitation's 7 days without signing in again.
 */
export function startMembers(options: StartOptions = {}): Promise<TestAerie> {
  return TestAerie.start({
    plugins: ['accounts', 'orgs', 'rbac', 'members', 'rbac-fixture', 'members-fixture'],
    ...options,
    env: {
      AERIE_PLUGIN_PATHS: `${MEMBERS_FIXTURE},${RBAC_FIXTURE}`,
      AERIE_SESSION_IDLE_TTL: String(30 * 86400),
      AERIE_SESSION_ABSOLUTE_TTL: String(60 * 86400),
      ...options.env,
    },
  });
}

/** Roles of `slug` by key (including inactive ones). */
export async function rolesByKey(aerie: TestAerie, token: string, slug: string): Promise<Record<string, any>> {
  const res = await aerie.request('GET', `/api/org/${slug}/roles?includeInactive=true`, { token });
  if (res.status !== 200) throw new Error(`roles: ${res.status} ${JSON.stringify(res.body)}`);
  return Object.fromEntries((res.body.Roles as Array<{ RoleKey: string }>).map((r) => [r.RoleKey, r]));
}

/** The id of role `roleKey` in `slug`. */
export async function roleId(aerie: TestAerie, token: string, slug: string, roleKey: string): Promise<string> {
  const role = (await rolesByKey(aerie, token, slug))[roleKey];
  if (!role) throw new Error(`no role ${roleKey} in ${slug}`);
  return role.RoleId as string;
}

/** Creates a custom role with `scopes`; returns its id. */
export async function customRole(aerie: TestAerie, token: string, slug: string, roleKey: string, scopes: string[]): Promise<string> {
  const res = await aerie.request('POST', `/api/org/${slug}/roles`, { token, body: { Name: roleKey, RoleKey: roleKey } });
  if (res.status !== 201) throw new Error(`create role: ${res.status} ${JSON.stringify(res.body)}`);
  for (const Scope of scopes) {
    const added = await aerie.request('POST', `/api/org/${slug}/roles/${res.body.RoleId}/permissions`, { token, body: { Scope } });
    if (added.status !== 201) throw new Error(`add ${Scope}: ${added.status} ${JSON.stringify(added.body)}`);
  }
  return res.body.RoleId as string;
}

/** The token of the newest invitation mail to `email`. @throws Error when there is none. */
export function invitationToken(aerie: TestAerie, email: string): string {
  const mails = mailsTo(aerie.dataDir, email).filter((m) => /^X-Aerie-Template: org-invitation$/m.test(m));
  // Quoted-printable bodies wrap long lines with a soft break (`=` at the end of a line).
  const body = (mails.at(-1) ?? '').replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = /^Invitation token: ([A-Za-z0-9_-]+)$/m.exec(body);
  if (!match) throw new Error(`no invitation mailed to ${email}`);
  return match[1];
}

/** Invitation mails to `email`. */
export function invitationMails(aerie: TestAerie, email: string): string[] {
  return mailsTo(aerie.dataDir, email).filter((m) => /^X-Aerie-Template: org-invitation$/m.test(m));
}

/** `POST /api/org/{slug}/members/invite`. */
export function invite(aerie: TestAerie, token: string, slug: string, body: Record<string, unknown>): Promise<TestResponse> {
  return aerie.request('POST', `/api/org/${slug}/members/invite`, { token, body });
}

/**
 * Invites `email` with role `roleKey` (or a role id), signs the invitee in and accepts.
 * @returns the invitee's session token and membership id (connectedIdId)
 */
export async function joinOrg(aerie: TestAerie, ownerToken: string, slug: string, email: string, role = 'ORG_GUEST'): Promise<{ token: string; id: string }> {
  const RoleId = /^[0-9a-f-]{36}$/.test(role) ? role : await roleId(aerie, ownerToken, slug, role);
  const sent = await invite(aerie, ownerToken, slug, { Email: email, RoleId });
  if (sent.status !== 201) throw new Error(`invite: ${sent.status} ${JSON.stringify(sent.body)}`);
  const token = await aerie.signIn(email);
  const accepted = await aerie.request('POST', '/api/org/invitation/accept', { token, body: { Token: invitationToken(aerie, email) } });
  if (accepted.status !== 200) throw new Error(`accept: ${accepted.status} ${JSON.stringify(accepted.body)}`);
  return { token, id: accepted.body.Member.ConnectedIdId as string };
}

/** `POST /api/org/{slug}/roles/{roleId}/members`. */
export function assign(aerie: TestAerie, token: string, slug: string, role: string, ConnectedIdId: string, Variables?: Record<string, string>): Promise<TestResponse> {
  return aerie.request('POST', `/api/org/${slug}/roles/${role}/members`, { token, body: { ConnectedIdId, ...(Variables ? { Variables } : {}) } });
}
