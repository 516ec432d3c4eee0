/**
 * An application's SAML service-provider registration.
 * @see docs/api/apps.md "SAML service provider"
 */
import { appsErrors } from './errors.ts';
import type { SamlServiceProvider } from './service-interfaces.ts';

/** Longest `entityId` or `acsUrl`. */
export const SAML_URL_MAX = 500;

/**
 * Checks that `entityId` and `acsUrl` are absolute `https://` URLs with a host, of at most 500 characters.
 * @throws 400 `CLIENT_CONFIG_INVALID` with `field` `saml.entityId` or `saml.acsUrl`
 */
export function checkSaml(saml: SamlServiceProvider): void {
  for (const member of ['entityId', 'acsUrl'] as const) {
    const value = saml[member];
    if (value.length > SAML_URL_MAX || !isHttpsUrl(value)) {
      throw appsErrors.clientConfigInvalid(`saml.${member}`, `saml.${member} must be an absolute https:// URL of at most ${SAML_URL_MAX} characters.`);
    }
  }
}

function isHttpsUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' && !url.username && !url.password;
  } catch {
    return false;
  }
}
