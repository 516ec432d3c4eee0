import type { RouteSchema } from './route.ts';

/**
 * The error envelope every error answer uses, as a shared schema (`#/components/schemas/ErrorEnvelope`):
 * `error` (the code to branch on) and `message`, with the code's extra fields beside them.
 * @see docs/api/errors.md
 */
export const ERROR_ENVELOPE = {
  $id: 'ErrorEnvelope',
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', description: 'Machine-readable code (UPPER_SNAKE, a few lowercase legacy codes).' },
    message: { type: 'string', description: 'One sentence for people; do not parse it.' },
    requestId: { type: 'string', description: 'On 500 INTERNAL_ERROR: the X-Request-Id of the request.' },
    field: { type: 'string', description: 'On VALIDATION_FAILED: the offending member.' },
    required: { type: 'string', description: 'On PERMISSION_DENIED: the scope that would help.' },
  },
  additionalProperties: true,
} as const satisfies RouteSchema;
