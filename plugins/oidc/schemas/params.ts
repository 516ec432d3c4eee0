import type { RouteSchema } from '../../../core/index.ts';

/** JSON Schema `oidc/slug.params`. */
export const slugParams = {
  $id: 'oidc/slug.params',
  type: 'object',
  required: ['slug'],
  properties: { slug: { type: 'string', maxLength: 39 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/resume.params`. */
export const resumeParams = {
  $id: 'oidc/resume.params',
  type: 'object',
  required: ['slug', 'uid'],
  properties: { slug: { type: 'string', maxLength: 39 }, uid: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `oidc/application.params`. */
export const applicationParams = {
  $id: 'oidc/application.params',
  type: 'object',
  required: ['applicationKey'],
  properties: { applicationKey: { type: 'string', maxLength: 128 } },
} as const satisfies RouteSchema;
