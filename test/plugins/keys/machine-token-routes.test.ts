import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestAerie } from '../../helpers/harness.ts';
import { createKey, startWithDirectory, tokenFor } from '../../helpers/api-keys.ts';
import { auditEvents } from '../../helpers/audit-events.ts';
import { customRole, joinOrg } from '../../helpers/org-members.ts';
import { signInWithOrg, type TestOrg } from '../../helpers/orgs.ts';

/**
 * Machine tokens on `/api/org/{slug}/*` (docs/api/keys.md, "Where machine tokens work"), walked from
 * the published route table: every organization route in `GET /api/openapi.json` either lets a
 * machine token holding its scope in (and refuses one without it: 403 `PERMISSION_DENIED` with
 * `required`), or is person-only with its reason, refuses machine tokens (401) and is listed in the
 * docs. A route added later is covered by construction: it is one or the other, or this fails.
 */

type Operation = { security?: Array<Record<string, unknown>>; 'x-aerie-scope'?: string; 'x-aerie-person-only'?: string; requestBody?: unknown };
type Doc = { paths: Record<string, Record<string, Operation>> };

const KEYS_DOC = readFileSync(new URL('../../../docs/api/keys.md', import.meta.url), 'utf8');
/** The docs section that lists person-only routes with their reasons. */
const DOCS = KEYS_DOC.slice(KEYS_DOC.indexOf('### Where machine tokens work'), KEYS_DOC.indexOf('## Scopes and events declared'));
const ZERO_ID = '00000000-0000-4000-8000-000000000000';

describe('keys: machine tokens on every /api/org/{slug}/* route of the OpenAPI document', () => {
  let aerie: TestAerie;
  let acme: TestOrg;
  let routes: Array<{ method: string; path: string; op: Operation }>;
  /** A token of a key that holds no scope at all. */
  let bare: string;

  beforeAll(async () => {
    aerie = await startWithDirectory({ env: { AERIE_PLATFORM_ADMINS: 'owner@acme.test' } });
    acme = await signInWithOrg(aerie, 'owner@acme.test', 'acme');
    const doc: Doc = (await aerie.request('GET', '/api/openapi.json')).body;
    routes = Object.entries(doc.paths)
      .filter(([path]) => path === '/api/org/{slug}' || path.startsWith('/api/org/{slug}/'))
      .flatMap(([path, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), path, op })));
    bare = await tokenFor(aerie, acme, (await createKey(aerie, acme)).value);
  });
  afterAll(() => aerie?.close());

  const send = (method: string, path: string, token: string, op: Operation) =>
    aerie.request(method, path.replace('{slug}', 'acme').replace(/\{\w+\}/g, ZERO_ID), { token, ...(op.requestBody ? { body: {} } : {}) });

  it('finds the organization routes of every enabled plugin', () => {
    const paths = routes.map((r) => r.path);
    for (const prefix of ['/api/org/{slug}/members', '/api/org/{slug}/roles', '/api/org/{slug}/settings/keys/api-keys']) {
      expect(paths.some((p) => p.startsWith(prefix)), prefix).toBe(true);
    }
  });

  it('accepts a token holding the scope, refuses one without it (403 with required), or is person-only with a documented reason', async () => {
    const failures: string[] = [];
    for (const { method, path, op } of routes) {
      const label = `${method} ${path}`;
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      const scope = op['x-aerie-scope'];
      const withScope = await tokenFor(aerie, acme, (await createKey(aerie, acme, scope ? { scopes: [scope] } : {})).value);
      const reason = op['x-aerie-person-only'];
      if (reason !== undefined) {
        if (typeof reason !== 'string' || reason.trim().length < 10) failures.push(`${label}: person-only without a reason`);
        if (schemes.includes('machineToken')) failures.push(`${label}: person-only but lists machineToken`);
        if (!DOCS.includes(`| ${method} | \`${path}\` |`)) failures.push(`${label}: person-only but not listed in docs/api/keys.md`);
        const res = await send(method, path, withScope, op);
        if (res.status !== 401) failures.push(`${label}: person-only answered ${res.status} to a machine token`);
        continue;
      }
      if (!schemes.includes('machineToken')) failures.push(`${label}: neither accepts machine tokens nor is person-only`);
      const res = await send(method, path, withScope, op);
      // Past authentication and the scope check: the handler (or validation) answers, not 401/403.
      if (res.status === 401 || res.status === 403) failures.push(`${label}: a token holding ${scope ?? 'no scope'} got ${res.status} ${JSON.stringify(res.body)}`);
      if (scope) {
        const refused = await send(method, path, bare, op);
        if (refused.status !== 403 || refused.body.error !== 'PERMISSION_DENIED' || refused.body.required !== scope) {
          failures.push(`${label}: a token without ${scope} got ${refused.status} ${JSON.stringify(refused.body)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('runs the handler for a machine token: members listed, a role created and audited with the key as actor', async () => {
    const key = await createKey(aerie, acme, { scopes: ['org.member.list', 'org.role.create'] });
    const token = await tokenFor(aerie, acme, key.value);
    const members = await aerie.request('GET', '/api/org/acme/members', { token });
    expect(members.status).toBe(200);
    expect(members.body.Members.map((m: { Role: string }) => m.Role)).toContain('Owner');
    const created = await aerie.request('POST', '/api/org/acme/roles', { token, body: { Name: 'Robots', RoleKey: 'ROBOTS' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const [event] = (await auditEvents(aerie, acme, 'org.role.created')).filter((e) => e.businessData.roleId === created.body.RoleId);
    expect(event).toMatchObject({ actorType: 'machine', actorId: key.id });
  });

  it('gives a token no role privileges beyond its scopes: no role change, no Admin target, no granting what it lacks', async () => {
    const guest = await joinOrg(aerie, acme.owner, 'acme', 'guest@acme.test');
    const admin = await joinOrg(aerie, acme.owner, 'acme', 'admin@acme.test');
    expect((await aerie.request('PATCH', `/api/org/acme/members/${admin.id}`, { token: acme.owner, body: { Role: 'Admin' } })).status).toBe(200);
    const deleter = await customRole(aerie, acme.owner, 'acme', 'DELETERS', ['org.role.delete']);
    const key = await createKey(aerie, acme, { scopes: ['org.member.update', 'org.member.suspend', 'org.role.assign'] });
    const token = await tokenFor(aerie, acme, key.value);

    const patch = await aerie.request('PATCH', `/api/org/acme/members/${guest.id}`, { token, body: { Role: 'Admin' } });
    expect(patch.status).toBe(403);
    expect(patch.body.error).toBe('PERMISSION_DENIED');
    expect((await aerie.request('POST', `/api/org/acme/members/${admin.id}/suspend`, { token })).status).toBe(403);
    const assigned = await aerie.request('POST', `/api/org/acme/roles/${deleter}/members`, { token, body: { ConnectedIdId: guest.id } });
    expect(assigned.status).toBe(403);
    expect(assigned.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.role.delete' });
    // What the scopes do allow still works: suspending a plain member.
    expect((await aerie.request('POST', `/api/org/acme/members/${guest.id}/suspend`, { token })).status).toBe(200);
  });

  it('queries the audit log: its own events by default, the whole organization with org.audit_event_log.list (plan gate kept)', async () => {
    const key = await createKey(aerie, acme, { scopes: ['org.role.create', 'org.audit_event_log.list'] });
    const token = await tokenFor(aerie, acme, key.value);
    expect((await aerie.request('POST', '/api/org/acme/roles', { token, body: { Name: 'Auditors', RoleKey: 'AUDITORS' } })).status).toBe(201);
    expect((await aerie.request('POST', '/api/org/acme/roles', { token: acme.owner, body: { Name: 'Owners pick', RoleKey: 'OWNERS_PICK' } })).status).toBe(201);
    await aerie.kernel.auditSealer.drain();
    const query = (q: string, t = token) => aerie.request('GET', `/api/v1/admin/audit/query?orgSlug=acme${q}`, { token: t });

    const mine = await query('');
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.items.length).toBeGreaterThan(0);
    expect(mine.body.items.every((e: { actor: unknown }) => JSON.stringify(e.actor) === JSON.stringify({ type: 'machine', id: key.id }))).toBe(true);
    const detail = await aerie.request('GET', `/api/v1/admin/audit/query/detail?orgSlug=acme&id=${mine.body.items[0].id}`, { token });
    expect(detail.status).toBe(200);
    expect(detail.body.chainHash).toMatch(/^[0-9a-f]{64}$/);

    expect((await query('&scope=all')).body).toMatchObject({ error: 'UPGRADE_REQUIRED' });
    expect((await aerie.request('PUT', '/api/v1/admin/orgs/acme/plan', { token: acme.owner, body: { planKey: 'Pro' } })).status).toBe(200);
    const all = await query('&scope=all');
    expect(all.status).toBe(200);
    expect(all.body.items.map((e: { actor: { type: string } }) => e.actor.type)).toContain('account');
    const refused = await query('&scope=all', bare);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ error: 'PERMISSION_DENIED', required: 'org.audit_event_log.list' });
    // The token names acme: another organization (or none) is not its to query.
    expect((await aerie.request('GET', '/api/v1/admin/audit/query?orgSlug=globex', { token })).status).toBe(401);
    expect((await aerie.request('GET', '/api/v1/admin/audit/query', { token })).status).toBe(401);
  });
});
