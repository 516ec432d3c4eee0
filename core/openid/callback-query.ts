const PARAM = { type: 'string', maxLength: 4096 } as const;

/**
 * JSON Schema of the query an OpenID provider sends a relying party's callback (RFC 6749 4.1.2,
 * RFC 9207 `iss`), under the route's own `$id`; other parameters some providers add
 * (`session_state`) pass through, each at most 4,096 characters.
 * @example export const oidcCallbackQuery = openIdCallbackQuery('federation/oidc-callback.query');
 */
export function openIdCallbackQuery<const Id extends string>($id: Id) {
  return {
    $id, type: 'object', additionalProperties: PARAM,
    properties: { code: PARAM, state: PARAM, iss: PARAM, error: PARAM, error_description: PARAM },
  } as const;
}
