import { route, type RouteDef } from '../../../core/index.ts';
import type { SigningKeysService } from '../service-interfaces.ts';
import { keysErrors } from '../errors.ts';
import { slugParams } from '../schemas/slug.params.ts';
import { signingKeyRotateResponse } from '../schemas/responses.ts';

const SCOPE = 'org.signing_key.rotate';

/**
 * `POST /api/org/{slug}/settings/keys/signing-key/rotate` (Owner/Admin): a new RSA-2048 key; the old
 * one leaves the JWKS at once and every token it signed stops verifying.
 * @returns `{ kid, retiredKid, issuer, jwksUri }`
 * @see docs/api/orgs.md
 */
export function signingKeyRoutes(signingKeys: SigningKeysService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/org/{slug}/settings/keys/signing-key/rotate', auth: 'session', org: true, scope: SCOPE, params: slugParams,
      personOnly: "an Owner's or Admin's decision: rotating cuts off every token the key signed, the caller's own included",
      response: signingKeyRotateResponse,
      summary: "Rotate the organization's signing key (old tokens stop verifying at once)", tags: ['keys'],
      handler: async ({ org }) => {
        const role = org.membership?.role;
        if (role !== 'Owner' && role !== 'Admin') throw keysErrors.ownerOrAdminOnly(SCOPE);
        const { kid, retiredKid } = await signingKeys.rotate({ id: org.organization.id, slug: org.organization.slug });
        const issuer = signingKeys.issuer(org.organization.slug);
        return { kid, retiredKid, issuer, jwksUri: `${issuer}/.well-known/jwks.json` };
      },
    }),
  ];
}
