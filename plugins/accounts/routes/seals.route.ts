import { route, type RouteDef, type SealField, type SealService } from '../../../core/index.ts';
import type { PersonalSealsService } from '../service-interfaces.ts';
import { SIGNED_IN } from './passkeys.route.ts';
import { sealBindBody } from '../schemas/seal-bind.body.ts';
import { stepupOptionsBody } from '../schemas/stepup-options.body.ts';
import { personalSealResponse, stepupOptionsResponse } from '../schemas/responses.ts';

/**
 * Personal seal and step-up:
 * `POST /api/v1/seals {credentialId}` binds one of the caller's passkeys as the personal seal
 * (no security mail) → `{personalSeal}`;
 * `POST /api/passkey/stepup/options {purpose, subject, inputs?}` → `{hasPasskey, options, binding?}`,
 * a single-use challenge (5 minutes) = SHA-256 of the canonical line of `binding`.
 * @see docs/api/keys.md, docs/audit.md; docs/seals.md; docs/seals.md
 */
export function sealRoutes(personalSeals: PersonalSealsService, seals: SealService): RouteDef[] {
  return [
    route({
      method: 'POST', path: '/api/v1/seals', auth: SIGNED_IN, body: sealBindBody,
      response: personalSealResponse,
      summary: 'Bind a passkey as the personal seal', tags: ['passkeys'],
      handler: async ({ principal, body }) => ({ personalSeal: await personalSeals.bind(principal.accountId, body.credentialId) }),
    }),
    route({
      method: 'POST', path: '/api/passkey/stepup/options', auth: SIGNED_IN, body: stepupOptionsBody,
      response: stepupOptionsResponse,
      summary: 'Step-up challenge bound to a purpose and subject (and content)', tags: ['passkeys'],
      handler: async ({ principal, body }) => seals.issueOptions({ accountId: principal.accountId, purpose: body.purpose, subject: body.subject, inputs: body.inputs }),
    }),
  ];
}
