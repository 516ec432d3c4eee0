import type { TestAerie } from './harness.ts';

/** An organization with its owner's session token. */
export interface TestOrg {
  id: string;
  slug: string;
  owner: string;
}

/**
 * Creates organization `slug` (`POST /api/org/create`) as the session `token`.
 * @returns the organization id. @throws Error unless the answer is 201.
 */
export async function createOrg(aerie: TestAerie, token: string, slug: string, type: 'Standard' | 'Corporation' | 'Project' = 'Standard'): Promise<string> {
  const res = await aerie.request('POST', '/api/org/create', { token, body: { name: `Org ${slug}`, slug, type } });
  if (res.status !== 201) throw new Error(`create org: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id as string;
}

/** Signs `email` in and creates organization `slug` owned by it. @throws Error unless creation is 201. */
export async function signInWithOrg(aerie: TestAerie, email: string, slug: string): Promise<TestOrg> {
  const owner = await aerie.signIn(email);
  return { id: await createOrg(aerie, owner, slug), slug, owner };
}
