import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import pino from 'pino';
import { createHttpApp } from '../../../core/http/app.ts';
import { buildRouter } from '../../../core/http/router.ts';
import { route } from '../../../core/http/route.ts';
import { orderRoutes, pathShape, withOrgCredentials, type OwnedRoute } from '../../../core/http/route-table.ts';
import type { AuthScheme } from '../../../core/http/auth-scheme.ts';
import { SchemaRegistry } from '../../../core/http/schema-registry.ts';
import { BootError } from '../../../core/plugins/boot-error.ts';

/** A public GET route answering with its own path, so a test sees which route matched. */
const echo = (pluginId: string, path: string, method: 'GET' | 'POST' = 'GET'): OwnedRoute =>
  ({ pluginId, def: route({ method, path, auth: 'public', handler: () => ({ matched: path }) }) });

const build = (routes: OwnedRoute[]) => buildRouter({ routes, schemas: new SchemaRegistry(), authSchemes: new Map() });

describe('route table', () => {
  it('pathShape erases parameter names only', () => {
    expect(pathShape('/api/org/{slug}/roles/{roleId}')).toBe('/api/org/{}/roles/{}');
    expect(pathShape('/api/org/{slug}/roles/scopes')).toBe('/api/org/{}/roles/scopes');
  });

  it('refuses the same method and path twice at boot, naming both plugins', () => {
    const routes = [echo('rbac', '/api/org/{slug}/roles'), echo('partner', '/api/org/{slug}/roles')];
    expect(() => build(routes)).toThrow(BootError);
    expect(() => build(routes)).toThrow('duplicate route GET /api/org/{slug}/roles: plugin rbac and plugin partner');
  });

  it('counts paths that differ only in parameter names as duplicates', () => {
    const routes = [echo('rbac', '/api/org/{slug}/roles/{roleId}'), echo('partner', '/api/org/{orgSlug}/roles/{id}')];
    expect(() => orderRoutes(routes)).toThrow(
      'duplicate route GET /api/org/{slug}/roles/{roleId} (and /api/org/{orgSlug}/roles/{id}): plugin rbac and plugin partner');
  });

  it('accepts the same path with another method', () => {
    expect(() => build([echo('rbac', '/api/x/{id}'), echo('rbac', '/api/x/{id}', 'POST')])).not.toThrow();
  });

  it('orders a literal segment before a parameter at the same position, keeping registration order otherwise', () => {
    const ordered = orderRoutes([
      echo('a', '/api/org/{slug}/roles/{roleId}'),
      echo('a', '/api/org/{slug}/roles'),
      echo('b', '/api/org/{slug}/roles/scopes'),
      echo('a', '/api/a/{x}/c'),
      echo('b', '/api/a/b/{y}'),
    ]).map((r) => r.def.path);
    expect(ordered.indexOf('/api/org/{slug}/roles/scopes')).toBeLessThan(ordered.indexOf('/api/org/{slug}/roles/{roleId}'));
    expect(ordered.indexOf('/api/a/b/{y}')).toBeLessThan(ordered.indexOf('/api/a/{x}/c'));
  });

  describe('matching, with the parameter routes registered first (the "wrong" order)', () => {
    let server: Server;
    let base: string;
    beforeAll(async () => {
      const router = build([
        echo('rbac', '/api/org/{slug}/roles/{roleId}'),
        echo('partner', '/api/org/{slug}/roles/scopes'),
        echo('rbac', '/api/org/{slug}/roles/sod-report'),
        echo('a', '/api/a/{x}/c'),
        echo('b', '/api/a/b/{y}'),
        echo('apps', '/api/org/{slug}/integrations/app:{groupKey}/enable'),
      ]);
      server = createHttpApp(router, pino({ level: 'silent' })).listen(0, '127.0.0.1');
      await new Promise((ok) => server.once('listening', ok));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterAll(() => new Promise((done) => server.close(done)));

    it.each([
      ['/api/org/acme/roles/scopes', '/api/org/{slug}/roles/scopes'],
      ['/api/org/acme/roles/sod-report', '/api/org/{slug}/roles/sod-report'],
      ['/api/org/acme/roles/4f1c', '/api/org/{slug}/roles/{roleId}'],
      ['/api/a/b/c', '/api/a/b/{y}'],
      ['/api/a/z/c', '/api/a/{x}/c'],
      // A literal ':' before a parameter (the spec's `app:{groupKey}`).
      ['/api/org/acme/integrations/app:appgroup_x/enable', '/api/org/{slug}/integrations/app:{groupKey}/enable'],
    ])('GET %s is served by %s', async (url, expected) => {
      const res = await fetch(base + url);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ matched: expected });
    });
  });

  it('adds organization-credential schemes to every org route unless it is personOnly, public or not org', () => {
    const scheme = (name: string, orgCredential?: boolean): [string, AuthScheme] => [name, { name, orgCredential, authenticate: async () => null }];
    const schemes = new Map([scheme('session'), scheme('machineToken', true)]);
    const def = (extra: Record<string, unknown>) => ({ pluginId: 'p', def: { method: 'GET', path: '/api/org/{slug}/x', auth: 'session', handler: () => 1, ...extra } }) as OwnedRoute;
    const table = withOrgCredentials([
      def({ org: true }), def({ org: true, personOnly: 'an owner decides' }), def({ org: true, auth: 'public' }), def({}),
      def({ org: true, auth: ['session', 'machineToken'] }),
    ], schemes);
    expect(table.map((r) => r.def.auth)).toEqual([['session', 'machineToken'], 'session', 'public', 'session', ['session', 'machineToken']]);
    expect(withOrgCredentials([def({ org: true })], new Map([scheme('session')]))[0].def.auth).toBe('session');
  });

  it('keeps organization credentials off routes that take a dedicated credential (SCIM), and adds a rider beside the scheme it rides with, person-only routes too', () => {
    const schemes = new Map<string, AuthScheme>([
      ['session', { name: 'session', authenticate: async () => null }],
      ['cookieSession', { name: 'cookieSession', orgRoutesWith: 'session', authenticate: async () => null }],
      ['machineToken', { name: 'machineToken', orgCredential: true, authenticate: async () => null }],
      ['scimToken', { name: 'scimToken', dedicated: true, authenticate: async () => null }],
    ]);
    const def = (extra: Record<string, unknown>) => ({ pluginId: 'p', def: { method: 'GET', path: '/api/org/{slug}/x', auth: 'session', org: true, handler: () => 1, ...extra } }) as OwnedRoute;
    const table = withOrgCredentials([def({ auth: 'scimToken' }), def({}), def({ personOnly: 'a seal' }), def({ auth: 'apiKey' })], schemes);
    expect(table.map((r) => r.def.auth)).toEqual(['scimToken', ['session', 'cookieSession', 'machineToken'], ['session', 'cookieSession'], ['apiKey', 'machineToken']]);
  });
});
