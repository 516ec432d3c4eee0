import { AerieError } from '../../core/index.ts';

/** Error codes of the roost plugin. @see spec 02 "Signing box re-arm", "Errors" */
export const roostErrors = {
  ownerRequired: () => new AerieError(403, 'OWNER_REQUIRED', 'Only the organization owner may re-arm a signing box.'),
  invalidRequest: (field: 'box' | 'nonce', rule: string) =>
    new AerieError(400, 'INVALID_REARM_REQUEST', `${field} ${rule}`, { field }),
  disabled: () =>
    new AerieError(503, 'ROOST_REARM_DISABLED', 'This server has no re-arm signing key configured (run `aerie roost keygen` or set AERIE_ROOST_KEY).'),
};
