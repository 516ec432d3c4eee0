import type { RouteSchema } from '../../../core/index.ts';

const PARAM = { type: 'string', maxLength: 4096 } as const;

/**
 * JSON Schema `federation/oidc-callback.query`: what an OpenID provider sends back (RFC 6749 4.1.2,
 * RFC 9207 `iss`); other parameters some providers add (`session_state`) pass through.
 * @see docs/api/federation.md "Signing in"
 */
export const oidcCallbackQuery = {
  $id: 'federation/oidc-callback.query',
  type: 'object',
  additionalProperties: PARAM,
  properties: { code: PARAM, state: PARAM, iss: PARAM, error: PARAM, error_description: PARAM },
} as const satisfies RouteSchema;
