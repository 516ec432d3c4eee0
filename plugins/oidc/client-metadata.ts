import type { AdapterPayload } from 'oidc-provider';
import type { ApplicationDto } from '../apps/api.ts';

/** Stands in for a confidential client's secret: the real one is checked against its hash by the apps plugin. */
export const SECRET_CHECKED_ELSEWHERE = 'secret-checked-by-the-apps-plugin';

/** Client metadata Aerie adds to oidc-provider's (declared as `extraClientMetadata`). */
export const EXTRA_CLIENT_METADATA = ['aerie_app_group_id', 'aerie_pkce_required', 'aerie_kind', 'aerie_first_party'] as const;

/**
 * An application as oidc-provider client metadata: client id = the `client_…` key; redirect URIs,
 * grant types, scopes, PKCE and the token endpoint authentication method from the application
 * record, re-read on every use (so an update applies at once). A disabled application is no client.
 * Only the authorization code flow answers at the authorization endpoint (`response_types: code`),
 * and everything the provider signs for the client is RS256 with the organization's key.
 * @returns the metadata, or `undefined` for a disabled application
 * @see docs/api/signin.md "Clients"
 */
export function clientMetadata(app: ApplicationDto, appGroupId: string): AdapterPayload | undefined {
  if (app.status !== 'active') return undefined;
  const codeFlow = app.grantTypes.includes('authorization_code');
  return {
    client_id: app.clientKey,
    ...(app.tokenEndpointAuthMethod === 'none' ? {} : { client_secret: SECRET_CHECKED_ELSEWHERE }),
    token_endpoint_auth_method: app.tokenEndpointAuthMethod,
    application_type: app.kind === 'Native' ? 'native' : 'web',
    grant_types: [...app.grantTypes],
    response_types: codeFlow ? ['code'] : [],
    redirect_uris: codeFlow ? [...app.redirectUris] : [],
    post_logout_redirect_uris: [...app.postLogoutRedirectUris],
    // offline_access asks for a refresh token, which a client with the refresh_token grant may have.
    scope: [...new Set([...app.allowedScopes, ...(app.grantTypes.includes('refresh_token') ? ['offline_access'] : [])])].join(' '),
    id_token_signed_response_alg: 'RS256',
    aerie_app_group_id: appGroupId,
    aerie_pkce_required: app.pkceRequired || app.tokenEndpointAuthMethod === 'none',
    aerie_kind: app.kind,
    // false: a third party's application, whose end users consent to its scopes (docs/api/signin.md "Consent").
    aerie_first_party: app.firstParty,
  };
}
