import { openIdCallbackQuery, type RouteSchema } from '../../../core/index.ts';

/**
 * JSON Schema `federation/oidc-callback.query`: what an OpenID provider sends back.
 * @see docs/api/federation.md "Signing in"
 */
export const oidcCallbackQuery = openIdCallbackQuery('federation/oidc-callback.query') satisfies RouteSchema;
