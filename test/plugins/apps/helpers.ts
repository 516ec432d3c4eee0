import { expect } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import type { TestOrg } from '../../helpers/orgs.ts';

/** Signs `email` in and gives it an active membership of `org` with `role`; returns its session token. */
export async function addMembership(aerie: TestAerie, org: TestOrg, email: string, role: 'Admin' | 'Member'): Promise<string> {
  const token = await aerie.signIn(email);
  await aerie.sql(`insert into orgs.memberships (id, org_id, account_id, role, status, created_at, updated_at)
    select gen_random_uuid(), ?, id, ?, 'active', now(), now() from accounts.accounts where email = ?`, [org.id, role, email]);
  return token;
}

/** `POST /api/org/{slug}/app-groups`, failing the test unless 201; answers the group with its first application. */
export async function createGroup(aerie: TestAerie, org: TestOrg, body: Record<string, unknown>, token = org.owner): Promise<any> {
  const res = await aerie.request('POST', `/api/org/${org.slug}/app-groups`, { token, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}
