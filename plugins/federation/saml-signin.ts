import type { CacheProvider, Profile, SAML } from '@node-saml/node-saml';
import { XMLParser } from 'fast-xml-parser';
import { SigninRefused, type IdpIdentity } from '../../core/index.ts';

/** The SAML side of an active connection, and Aerie's own endpoints for the organization. */
export interface SamlSigninConfig {
  entityId: string;
  ssoUrl: string;
  certificates: string[];
  /** Aerie's service-provider entity id (`{base_url}/idp/{slug}/saml`), the expected audience. */
  spEntityId: string;
  /** `{base_url}/idp/{slug}/saml/acs`, the expected recipient. */
  acsUrl: string;
}

/** Clock skew accepted on `NotBefore` / `NotOnOrAfter`, in milliseconds. */
const CLOCK_SKEW_MS = 60_000;

const EMAIL_ATTRIBUTES = ['email', 'mail', 'emailaddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'];
const NAME_ATTRIBUTES = ['displayName', 'name', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/name', 'http://schemas.microsoft.com/identity/claims/displayname'];

/**
 * A node-saml instance for one step. InResponseTo is always required; the request ids node-saml
 * issues and looks up go through `requestIds` (the flow row keeps the id, so nothing lives in memory).
 */
async function saml(c: SamlSigninConfig, requestIds: CacheProvider): Promise<SAML> {
  // Loaded on the first SAML sign-in: most processes never need it (~16 MiB with its XML stack).
  const { SAML, ValidateInResponseTo } = await import('@node-saml/node-saml');
  return new SAML({
    callbackUrl: c.acsUrl, entryPoint: c.ssoUrl, issuer: c.spEntityId, audience: c.spEntityId, idpIssuer: c.entityId,
    idpCert: c.certificates, wantAssertionsSigned: true, wantAuthnResponseSigned: false,
    validateInResponseTo: ValidateInResponseTo.always, cacheProvider: requestIds, acceptedClockSkewMs: CLOCK_SKEW_MS,
    disableRequestedAuthnContext: true, identifierFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  });
}

/** Builds the AuthnRequest (HTTP-Redirect binding): answers the URL and the request id to keep. */
export async function startSaml(c: SamlSigninConfig): Promise<{ url: string; requestId: string }> {
  let requestId: string | null = null;
  const capture: CacheProvider = {
    saveAsync: async (key, value) => {
      requestId = key;
      return { value, createdAt: Date.now() };
    },
    getAsync: async () => null,
    removeAsync: async () => null,
  };
  const url = await (await saml(c, capture)).getAuthorizeUrlAsync('', undefined, {});
  if (!requestId) throw new Error('node-saml issued no request id');
  return { url, requestId };
}

/**
 * Validates a POSTed `SAMLResponse`: the assertion's XML signature against the connection's
 * certificates (only the signed element is read, so a wrapped copy is never the one used; one
 * assertion only), the IdP issuer, `InResponseTo` equal to the flow's request id, the audience
 * (`spEntityId`), the time window (`NotBefore`, `NotOnOrAfter`, 60 s skew) and the subject
 * confirmation `Recipient` (`acsUrl`).
 * @throws SigninRefused (`saml_invalid`, `saml_signature_invalid`, `saml_audience_mismatch`,
 *   `saml_expired`, `saml_in_response_to_mismatch`, `saml_recipient_mismatch`, `saml_issuer_mismatch`)
 */
export async function finishSaml(c: SamlSigninConfig, samlResponse: string, expectedRequestId: string): Promise<IdpIdentity> {
  const known: CacheProvider = {
    saveAsync: async () => null,
    // node-saml reads the value as the request's issue time; the flow row's expiry already bounds it.
    getAsync: async (key) => (key === expectedRequestId ? new Date().toISOString() : null),
    removeAsync: async () => null,
  };
  let profile: Profile | null;
  try {
    ({ profile } = await (await saml(c, known)).validatePostResponseAsync({ SAMLResponse: samlResponse }));
  } catch (err) {
    throw new SigninRefused(reasonOf(err));
  }
  if (!profile) throw new SigninRefused('saml_invalid');
  if (recipientOf(profile.getAssertionXml?.()) !== c.acsUrl) throw new SigninRefused('saml_recipient_mismatch');
  const attribute = (names: string[]) => {
    for (const name of names) {
      const v = profile![name];
      const first = Array.isArray(v) ? v[0] : v;
      if (typeof first === 'string' && first) return first;
    }
    return null;
  };
  const nameIdEmail = /^[^@\s]+@[^@\s]+$/.test(profile.nameID ?? '') ? profile.nameID : null;
  const email = (attribute(EMAIL_ATTRIBUTES) ?? nameIdEmail)?.toLowerCase() ?? null;
  // A SAML IdP has no `email_verified`: the organization vouches for its IdP's addresses.
  return { subject: profile.nameID, email, emailVerified: email !== null, name: attribute(NAME_ATTRIBUTES)?.slice(0, 200) ?? null };
}

/** The signed assertion's `SubjectConfirmationData@Recipient` (bearer confirmation), or null. */
function recipientOf(assertionXml: string | undefined): string | null {
  if (!assertionXml) return null;
  const doc = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, attributeNamePrefix: '@', processEntities: false }).parse(assertionXml);
  const confirmations = [doc?.Assertion?.Subject?.SubjectConfirmation].flat().filter(Boolean) as Array<Record<string, any>>;
  const bearer = confirmations.find((s) => s['@Method'] === 'urn:oasis:names:tc:SAML:2.0:cm:bearer');
  const recipient = [bearer?.SubjectConfirmationData].flat()[0]?.['@Recipient'];
  return typeof recipient === 'string' ? recipient : null;
}

function reasonOf(err: unknown): string {
  const message = String((err as Error)?.message ?? '');
  if (/InResponseTo/i.test(message)) return 'saml_in_response_to_mismatch';
  if (/audience/i.test(message)) return 'saml_audience_mismatch';
  // "No valid subject confirmation": none of the bearer confirmations is within its time window.
  if (/expired|NotOnOrAfter|NotBefore|not yet valid|too old|no valid subject confirmation/i.test(message)) return 'saml_expired';
  if (/issuer/i.test(message)) return 'saml_issuer_mismatch';
  if (/signature/i.test(message)) return 'saml_signature_invalid';
  return 'saml_invalid';
}
