import { parseScope, reply, route, type AuthzService, type HandlerInput, type RouteDef, type RouteSeal, type SchemaType } from '../../../core/index.ts';
import type { NewApiKey } from '../api-keys.service.ts';
import type { ApiKeysService } from '../service-interfaces.ts';
import { keysErrors } from '../errors.ts';
import { DEFAULT_TOKEN_LIFETIME_SECONDS } from '../token-lifetime.ts';
import { createApiKeyBody } from '../schemas/create-api-key.body.ts';
import { keyIdParams } from '../schemas/key-id.params.ts';
import { slugParams } from '../schemas/slug.params.ts';
import { apiKeysListResponse, apiKeyWithValueResponse } from '../schemas/responses.ts';

type CreateBody = SchemaType<typeof createApiKeyBody>;

/**
 * A ceiling above 300 s needs the organization owner (403 for anyone else, checked here so it comes
 * before the seal) and the owner's passkey seal with purpose `api_key.long_lifetime` bound to the
 * organization slug (401 `STEPUP_REQUIRED` / `STEPUP_FAILED`). Ceilings up to 300 s need neither.
 * @see docs/api/keys.md
 */
export const longLifetimeSeal: RouteSeal<HandlerInput<CreateBody, unknown, SchemaType<typeof slugParams>>> = {
  purpose: 'api_key.long_lifetime',
  subject: (i) => i.params.slug,
  assertionField: 'assertionResponseJson',
  when: (i) => {
    if (!needsLongLifetimeSeal(i.body)) return false;
    if (i.org?.membership?.role !== 'Owner') throw keysErrors.ownerOnlyLongLifetime();
    return true;
  },
};

function needsLongLifetimeSeal(body: CreateBody): boolean {
  return (body.maxTokenLifetimeSeconds ?? 0) > DEFAULT_TOKEN_LIFETIME_SECONDS;
}

/**
 * Organization API keys under `/api/org/{slug}/settings/keys/api-keys`: create (value shown once),
 * list (never values; session or machine token with `org.api_key.list`), rotate, revoke.
 * @see docs/api/keys.md
 */
export function apiKeyRoutes(apiKeys: ApiKeysService, authz: AuthzService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/settings/keys/api-keys', auth: 'session', org: true, scope: 'org.api_key.create', params: slugParams,
      response: apiKeyWithValueResponse,
      body: createApiKeyBody, status: 201, seal: longLifetimeSeal,
      summary: 'Create an API key (the value is shown once)', tags: ['keys'],
      handler: async ({ body, principal, org, seal }) => {
        // The kernel verified the seal before this handler; never create a long-lived key without one.
        if (needsLongLifetimeSeal(body) && !seal) throw keysErrors.stepUpRequired();
        const scopes = body.scopes ?? [];
        // A key holds no more than its creator: every requested scope is a scope expression (400
        // otherwise) the creator holds (403 otherwise).
        for (const scope of scopes) assertScopeSyntax(scope);
        const held = scopes.length > 0 ? await authz.permissionSet(principal, org) : 'all';
        const missing = held === 'all' ? undefined : scopes.find((s) => !held.has(s));
        if (missing) throw keysErrors.grantNotHeld(missing);
        const { assertionResponseJson: _seal, ...input } = body;
        const { key, value } = await apiKeys.create(org.organization.id, principal.accountId ?? null, { ...input, scopes });
        return reply(201, { ...key, apiKey: value }, { 'cache-control': 'no-store' });
      },
    }),
    route({
      method: 'GET', path: '/api/org/{slug}/settings/keys/api-keys', auth: ['session', 'machineToken'], org: true, scope: 'org.api_key.list', params: slugParams,
      response: apiKeysListResponse,
      summary: "The organization's API keys (never their values)", tags: ['keys'],
      // App-group-scoped tokens get 401 from the kernel: this is an organization-wide route.
      handler: async ({ org }) => {
        return { apiKeys: await apiKeys.list(org.organization.id) };
      },
    }),
    route({
      method: 'POST', path: '/api/org/{slug}/settings/keys/api-keys/{keyId}/rotate', auth: 'session', org: true, scope: 'org.api_key.rotate', params: keyIdParams,
      response: apiKeyWithValueResponse,
      summary: 'Give an API key a new value (the old one stops working at once)', tags: ['keys'],
      handler: async ({ params, org }) => {
        const { key, value } = await apiKeys.rotate(org.organization.id, params.keyId);
        return reply(200, { ...key, apiKey: value }, { 'cache-control': 'no-store' });
      },
    }),
    route({
      method: 'DELETE', path: '/api/org/{slug}/settings/keys/api-keys/{keyId}', auth: 'session', org: true, scope: 'org.api_key.revoke', params: keyIdParams,
      response: { 204: null },
      summary: 'Revoke an API key and cut off the machine tokens it issued', tags: ['keys'],
      handler: async ({ params, org }) => {
        await apiKeys.revoke(org.organization.id, params.keyId);
      },
    }),
  ];
}

/** @throws AerieError 400 `VALIDATION_FAILED` (`field: scopes`) for text that is not a scope expression. */
function assertScopeSyntax(scope: string): void {
  try {
    parseScope(scope);
  } catch {
    throw keysErrors.invalidScope(scope);
  }
}
