import type { TestAerie, TestResponse } from '../../helpers/harness.ts';
import { addPasskey, authenticatorFor, signStepUp } from '../../helpers/passkey-flows.ts';
import type { AssertionOverrides, SoftAuthenticator } from '../../helpers/soft-authenticator.ts';

export { orgWithPeople, relate, type PeopleOrg } from '../teams/team-helpers.ts';
import type { PeopleOrg } from '../teams/team-helpers.ts';

/** Gives the account behind `token` a passkey on a fresh software authenticator. */
export async function withPasskey(aerie: TestAerie, token: string): Promise<SoftAuthenticator> {
  const auth = authenticatorFor(aerie);
  const { res } = await addPasskey(aerie, token, auth);
  if (res.status !== 201) throw new Error(`passkey: ${res.status} ${JSON.stringify(res.body)}`);
  return auth;
}

/** `POST /api/org/{slug}/approvals/work-items` as the owner; throws unless 201. */
export async function createForm(aerie: TestAerie, org: PeopleOrg, body: Record<string, unknown>): Promise<string> {
  const res = await aerie.request('POST', `/api/org/${org.slug}/approvals/work-items`, { token: org.owner, body });
  if (res.status !== 201) throw new Error(`create form: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** A position of kind `resolveType` with English label `label`. */
export const position = (label: string, resolveType: string, extra: Record<string, unknown> = {}) =>
  ({ labelKo: `${label}-ko`, labelEn: label, labelJa: `${label}-ja`, resolveType, ...extra });

/** `PUT …/approval-line` as the owner; throws unless 200. */
export async function setLine(aerie: TestAerie, org: PeopleOrg, formId: string, positions: unknown[]): Promise<void> {
  const res = await aerie.request('PUT', `/api/org/${org.slug}/approvals/work-items/${formId}/approval-line`, { token: org.owner, body: { positions } });
  if (res.status !== 200) throw new Error(`set line: ${res.status} ${JSON.stringify(res.body)}`);
}

/** Submits a document as `token` (signing the submit seal with `auth`). */
export async function submit(
  aerie: TestAerie, slug: string, token: string, auth: SoftAuthenticator, body: Record<string, unknown>,
): Promise<TestResponse> {
  const { assertion } = await signStepUp(aerie, token, auth, { purpose: 'approval.stamp', subject: `${slug}|${body.WorkItemId}|submit` });
  return aerie.request('POST', `/api/org/${slug}/approvals/instances`, { token, body: { ...body, SealAssertionJson: JSON.stringify(assertion) } });
}

/** Asks for stamp options on `instanceId` (with the reject reason as input when given) and signs them (`overrides`: e.g. a corrupt signature). */
export async function signStamp(aerie: TestAerie, token: string, auth: SoftAuthenticator, instanceId: string, reason?: string, overrides: AssertionOverrides = {}) {
  return signStepUp(aerie, token, auth, {
    purpose: 'approval.stamp', subject: `${instanceId}|approve|reject`, ...(reason !== undefined ? { inputs: [{ key: 'input.reason', value: reason }] } : {}),
  }, overrides);
}

/** `POST …/instances/{id}/stamp`. */
export function stamp(aerie: TestAerie, slug: string, token: string, instanceId: string, body: Record<string, unknown>): Promise<TestResponse> {
  return aerie.request('POST', `/api/org/${slug}/approvals/instances/${instanceId}/stamp`, { token, body });
}
