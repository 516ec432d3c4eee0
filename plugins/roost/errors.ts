import { aerieError, defineErrorCodes } from '../../core/index.ts';

/** The roost plugin's own error codes (documented in docs/appliance.md). */
export const roostErrorCodes = defineErrorCodes('roost', {
  OWNER_REQUIRED: { status: 403, description: 'only the organization owner may re-arm a signing box' },
  INVALID_REARM_REQUEST: { status: 400, description: 'the re-arm request has a bad `box` or `nonce` (`field`)' },
  ROOST_REARM_DISABLED: { status: 503, description: 'this server has no re-arm signing key configured' },
});

type RoostErrorCodes = typeof roostErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends RoostErrorCodes {}
}

/** Errors of the roost plugin. @see docs/appliance.md, docs/api/errors.md */
export const roostErrors = {
  ownerRequired: () => aerieError('OWNER_REQUIRED', 'Only the organization owner may re-arm a signing box.'),
  invalidRequest: (field: 'box' | 'nonce', rule: string) => aerieError('INVALID_REARM_REQUEST', `${field} ${rule}`, { field }),
  disabled: () =>
    aerieError('ROOST_REARM_DISABLED', 'This server has no re-arm signing key configured (run `aerie roost keygen` or set AERIE_ROOST_KEY).'),
};
