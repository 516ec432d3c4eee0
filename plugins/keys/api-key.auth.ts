import type { AuthScheme } from '../../core/index.ts';
import type { ApiKeysService } from './service-interfaces.ts';
import { API_KEY_PREFIX } from './api-keys.service.ts';

/** Longer header values are cut before hashing (no key is this long; bounds the work). */
const MAX_KEY_LENGTH = 256;

/**
 * The `apiKey` auth scheme for `/api/public/v1/*`: header `X-Api-Key: <API_KEY>`, or
 * `Authorization: Bearer ah_live_…`. Enforces:
 * - unknown, malformed and revoked keys are refused alike (401), with the same hash and indexed
 *   query whatever the value, so timing does not tell them apart;
 * - a key bound to a suspended or revoked service account is refused;
 * - the principal carries `orgId`, the key's `scopes` and, for app-group-scoped keys, `appGroupId`.
 * @see docs/api/accounts.md
 */
export function apiKeyAuthScheme(apiKeys: ApiKeysService): AuthScheme {
  return {
    name: 'apiKey',
    openapi: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'An organization API key (`ah_live_…`) in `X-Api-Key`; `Authorization: Bearer ah_live_…` is accepted too.' },
    async authenticate(req) {
      const value = presentedKey(req.headers);
      if (value === undefined) return null;
      return apiKeys.authenticate(value.slice(0, MAX_KEY_LENGTH));
    },
  };
}

function presentedKey(headers: Record<string, string | string[] | undefined>): string | undefined {
  const header = headers['x-api-key'];
  if (typeof header === 'string') return header.trim();
  const auth = headers.authorization;
  if (typeof auth !== 'string') return undefined;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(auth);
  // Other bearer values (session tokens, JWTs) belong to other schemes.
  return match && match[1].startsWith(API_KEY_PREFIX) ? match[1] : undefined;
}
