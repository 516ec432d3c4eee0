/**
 * The body of `POST /api/org/{slug}/idp-connections` (snake_case, as the settings page sends it).
 * @see docs/api/federation.md
 */
export interface ConnectionInput {
  provider: string;
  allow_jit?: boolean;
  oidc_discovery_url?: string;
  oidc_issuer?: string;
  oidc_authorization_endpoint?: string;
  oidc_token_endpoint?: string;
  oidc_client_id?: string;
  oidc_client_secret?: string;
  saml_metadata_url?: string;
  saml_metadata_xml?: string;
  saml_sso_url?: string;
  saml_entity_id?: string;
  saml_certificate?: string;
}

/** `custom-oidc`, `custom-saml` and the named OpenID providers (display labels over `custom-oidc`'s rules). */
export const PROVIDERS = ['custom-oidc', 'custom-saml', 'named-google', 'named-microsoft', 'named-okta', 'named-onelogin', 'named-jumpcloud'] as const;

export const protocolOf = (provider: string): 'oidc' | 'saml' => (provider === 'custom-saml' ? 'saml' : 'oidc');
