/**
 * Which passkey RP IDs an app group may use.
 * @see docs/api/apps.md "Passkey RP ID"
 */
import { getDomain } from 'tldts';

/**
 * Why `rpId` may not be an app group's passkey RP ID, or `undefined` when it may: it equals the host
 * of the service's base URL, or it is a registrable domain (not a public suffix, not a single
 * label, not an IP address) that one of `redirectHosts` (the hosts of the group's applications'
 * redirect URIs) equals or ends with after a dot.
 */
export function rpIdProblem(rpId: string, baseHost: string, redirectHosts: readonly string[]): string | undefined {
  const id = rpId.toLowerCase();
  if (id === baseHost.toLowerCase()) return undefined;
  const registrable = getDomain(id, { allowPrivateDomains: true });
  if (!registrable || !(id === registrable || id.endsWith(`.${registrable}`))) {
    return 'it must be a registrable domain (not a public suffix, a single label or an IP address)';
  }
  const covered = redirectHosts.some((h) => h.toLowerCase() === id || h.toLowerCase().endsWith(`.${id}`));
  return covered ? undefined : "it must be the service's own host or a suffix of the host of one of the group's redirect URIs";
}
