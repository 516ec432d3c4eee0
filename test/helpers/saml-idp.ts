import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignedXml } from 'xml-crypto';

/** What one SAML answer says; times are offsets from now in seconds. */
export interface AssertionInput {
  email: string;
  inResponseTo: string;
  audience: string;
  recipient: string;
  issuer?: string;
  notBefore?: number;
  notOnOrAfter?: number;
}

const ASSERTION = "//*[local-name(.)='Assertion']";
const iso = (offsetSeconds: number) => new Date(Date.now() + offsetSeconds * 1000).toISOString();
const id = () => `_${randomBytes(16).toString('hex')}`;

/**
 * A SAML identity provider in a test: a throwaway RSA key and self-signed certificate (openssl)
 * and a builder of `Response` documents whose assertion it signs (xml-crypto, RSA-SHA256, exclusive
 * C14N, enveloped) — the shape Okta and Entra ID post.
 */
export class SamlIdp {
  readonly entityId = 'https://idp.example/saml';
  readonly certificate: string;
  private readonly key: string;

  constructor() {
    const dir = mkdtempSync(join(tmpdir(), 'aerie-saml-'));
    try {
      execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=idp.example',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')], { stdio: 'ignore' });
      this.key = readFileSync(join(dir, 'key.pem'), 'utf8');
      this.certificate = readFileSync(join(dir, 'cert.pem'), 'utf8');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The assertion, unsigned. */
  assertion(a: AssertionInput): string {
    const issuer = a.issuer ?? this.entityId;
    return `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id()}" Version="2.0" IssueInstant="${iso(0)}">`
      + `<saml:Issuer>${issuer}</saml:Issuer>`
      + `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${a.email}</saml:NameID>`
      + '<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">'
      + `<saml:SubjectConfirmationData InResponseTo="${a.inResponseTo}" NotOnOrAfter="${iso(a.notOnOrAfter ?? 300)}" Recipient="${a.recipient}"/>`
      + '</saml:SubjectConfirmation></saml:Subject>'
      + `<saml:Conditions NotBefore="${iso(a.notBefore ?? -60)}" NotOnOrAfter="${iso(a.notOnOrAfter ?? 300)}"><saml:AudienceRestriction><saml:Audience>${a.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>`
      + `<saml:AuthnStatement AuthnInstant="${iso(0)}" SessionIndex="${id()}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`
      + `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${a.email}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>`
      + '</saml:Assertion>';
  }

  /** Signs the (only) assertion of `xml`, the signature placed after its Issuer. */
  sign(xml: string): string {
    const sig = new SignedXml({
      privateKey: this.key, publicCert: this.certificate,
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#', signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    });
    sig.addReference({ xpath: ASSERTION, transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'], digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256' });
    sig.computeSignature(xml, { location: { reference: `${ASSERTION}/*[local-name(.)='Issuer']`, action: 'after' } });
    return sig.getSignedXml();
  }

  /** A `Response` around `assertionXml` (signed or not, as given). */
  response(assertionXml: string, a: Pick<AssertionInput, 'inResponseTo' | 'recipient'>, extensions = ''): string {
    return `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id()}" Version="2.0" IssueInstant="${iso(0)}" Destination="${a.recipient}" InResponseTo="${a.inResponseTo}">`
      + `<saml:Issuer>${this.entityId}</saml:Issuer>${extensions}`
      + '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>'
      + `${assertionXml}</samlp:Response>`;
  }

  /** A signed answer, ready to post: `Response` with a signed assertion. */
  signedResponse(a: AssertionInput): string {
    return this.response(this.sign(this.assertion(a)), a);
  }
}
