import { route, type RouteDef } from '../../../core/index.ts';
import type { SharingPolicyService } from '../sharing-policy.service.ts';
import { sharingPolicyBody } from '../schemas/requests.ts';
import { sharingPolicy, sharingPolicySet } from '../schemas/responses.ts';

/**
 * The organization's link-sharing policy in the console (`org.setting.block_external_sharing`):
 * read it, and switch it (on closes every open share link, each close audited).
 * @see docs/api/files.md "Sharing policy"
 */
export function sharingPolicyRoutes(policy: SharingPolicyService): RouteDef[] {
  const common = { auth: 'session' as const, org: true as const, scope: 'org.setting.block_external_sharing', tags: ['files'] };
  return [
    route({
      ...common, method: 'GET', path: '/api/org/{slug}/files/sharing-policy', response: sharingPolicy,
      summary: 'Whether the organization blocks link sharing', handler: ({ org }) => policy.get(org.organization.id),
    }),
    route({
      ...common, method: 'PUT', path: '/api/org/{slug}/files/sharing-policy', body: sharingPolicyBody, response: sharingPolicySet,
      summary: 'Block or allow link sharing; blocking closes every open share link (each audited)',
      handler: ({ org, body }) => policy.set(org.organization.id, body.blockExternalSharing),
    }),
  ];
}
