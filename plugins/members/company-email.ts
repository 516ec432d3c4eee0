/**
 * The company-email gate for `REPRESENTATIVE_DIRECTOR` invitations (`ORG_DIRECTOR` is exempt).
 *
 * An address qualifies when its domain equals one of the organization's verified domains or is a
 * subdomain of one (`ann@eu.acme.com` under `acme.com`). Verified domains come from the
 * `members.companyDomains` extension point (domain verification is the settings plugin's
 * `/settings/domains/verify`); with no contributor nothing qualifies, so the gate fails closed.
 *
 * @see docs/api/members.md (director invitation fields); docs/api/members.md "Company-email gate"
 */

/**
 * Whether `email` is on one of `domains` (case-insensitive, subdomains included).
 * @example isCompanyEmail('ann@eu.acme.com', ['acme.com']) // true
 * @example isCompanyEmail('ann@notacme.com', ['acme.com']) // false
 */
export function isCompanyEmail(email: string, domains: readonly string[]): boolean {
  const at = email.lastIndexOf('@');
  if (at < 0) return false;
  const domain = email.slice(at + 1).toLowerCase().replace(/\.$/, '');
  return domains.some((d) => {
    const verified = d.toLowerCase().replace(/^\.+|\.$/g, '');
    return verified !== '' && (domain === verified || domain.endsWith(`.${verified}`));
  });
}

/** Every verified domain the contributors report for `orgId`. */
export async function companyDomainsOf(orgId: string, sources: ReadonlyArray<(orgId: string) => Promise<readonly string[]>>): Promise<string[]> {
  const all = await Promise.all(sources.map((s) => s(orgId)));
  return all.flat();
}
