import { DATE_TIME, type RouteSchema } from '../../../core/index.ts';

/** `roost/rearm-ticket.response`: a signed re-arm ticket for one box and nonce. @see docs/appliance.md */
export const rearmTicketResponse = {
  $id: 'roost/rearm-ticket.response',
  type: 'object',
  additionalProperties: false,
  required: ['ticket', 'box', 'nonce', 'expiresAt', 'keyFingerprint'],
  properties: {
    ticket: { type: 'string' },
    box: { type: 'string' },
    nonce: { type: 'string' },
    expiresAt: DATE_TIME,
    keyFingerprint: { type: 'string', pattern: '^[0-9a-f]{64}$' },
  },
} as const satisfies RouteSchema;

/** `roost/rearm-public-key.response`: the re-arm public key boxes pin (`aerie box init --pin`). */
export const rearmPublicKeyResponse = {
  $id: 'roost/rearm-public-key.response',
  type: 'object',
  additionalProperties: false,
  required: ['alg', 'publicKeyPem', 'fingerprint'],
  properties: {
    alg: { const: 'ES256' },
    publicKeyPem: { type: 'string', description: 'SPKI PEM.' },
    fingerprint: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the SPKI DER.' },
  },
} as const satisfies RouteSchema;
