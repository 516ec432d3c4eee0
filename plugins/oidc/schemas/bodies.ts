import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `oidc/email-code.body`. */
export const emailCodeBody = {
  $id: 'oidc/email-code.body',
  type: 'object',
  additionalProperties: false,
  required: ['email'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 320 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/email-code-verify.body`. */
export const emailCodeVerifyBody = {
  $id: 'oidc/email-code-verify.body',
  type: 'object',
  additionalProperties: false,
  required: ['email', 'code'],
  properties: { email: { type: 'string', minLength: 3, maxLength: 320 }, code: { type: 'string', pattern: '^[0-9]{6}$' } },
} as const satisfies RouteSchema;
