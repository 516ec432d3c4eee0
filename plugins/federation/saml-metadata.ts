import { X509Certificate } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';

/** What Aerie needs of a SAML identity provider. */
export interface SamlIdp {
  entityId: string;
  ssoUrl: string;
  /** PEM certificates the IdP signs with (several during a rollover). */
  certificates: string[];
}

const REDIRECT = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect';
const POST = 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST';
/** Largest metadata document read, in bytes. */
export const MAX_METADATA_BYTES = 256 * 1024;

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/**
 * Reads IdP metadata (`EntityDescriptor` with an `IDPSSODescriptor`): the entity id, the
 * single-sign-on URL (HTTP-Redirect, else HTTP-POST binding; https only) and the signing
 * certificates. Entities and DOCTYPEs are refused (no entity expansion, no external references).
 * @returns the IdP, or a reason it cannot be used.
 */
export function readMetadata(xml: string): SamlIdp | string {
  if (Buffer.byteLength(xml) > MAX_METADATA_BYTES) return 'the metadata is larger than 256 KiB';
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) return 'DOCTYPE and ENTITY declarations are not accepted';
  let doc: Record<string, any>;
  try {
    doc = new XMLParser({ ignoreAttributes: false, removeNSPrefix: true, attributeNamePrefix: '@', processEntities: false }).parse(xml, true);
  } catch {
    return 'the metadata is not well-formed XML';
  }
  const entity = doc.EntityDescriptor ?? list(doc.EntitiesDescriptor?.EntityDescriptor).find((e: any) => e?.IDPSSODescriptor);
  const idp = list(entity?.IDPSSODescriptor)[0] as Record<string, any> | undefined;
  if (!entity || !idp) return 'no EntityDescriptor with an IDPSSODescriptor';
  const entityId = entity['@entityID'];
  if (typeof entityId !== 'string' || !entityId || entityId.length > 1024) return 'the EntityDescriptor has no entityID';
  const services = list(idp.SingleSignOnService) as Array<Record<string, string>>;
  const sso = services.find((s) => s['@Binding'] === REDIRECT) ?? services.find((s) => s['@Binding'] === POST);
  if (!sso || !/^https:\/\/\S+$/.test(sso['@Location'] ?? '')) return 'no https SingleSignOnService with the HTTP-Redirect or HTTP-POST binding';
  const certificates: string[] = [];
  for (const key of list(idp.KeyDescriptor) as Array<Record<string, any>>) {
    if (key['@use'] && key['@use'] !== 'signing') continue;
    for (const data of list(key.KeyInfo?.X509Data)) {
      for (const raw of list((data as Record<string, unknown>).X509Certificate)) {
        const pem = toPem(String(raw));
        if (typeof pem !== 'string' || pem.startsWith('!')) return 'a signing certificate cannot be read';
        certificates.push(pem);
      }
    }
  }
  if (!certificates.length) return 'no signing certificate';
  return { entityId, ssoUrl: sso['@Location']!, certificates };
}

/**
 * A certificate as PEM, from PEM or bare base64 DER; `'!…'` when it does not parse as X.509.
 */
export function toPem(text: string): string {
  const base64 = text.replace(/-----(BEGIN|END) CERTIFICATE-----/g, '').replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]+=*$/.test(base64) || base64.length > 16_384) return '!not base64';
  const pem = `-----BEGIN CERTIFICATE-----\n${base64.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  try {
    new X509Certificate(pem);
    return pem;
  } catch {
    return '!not a certificate';
  }
}
