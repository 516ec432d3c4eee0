import type { RouteSchema } from '../../../core/index.ts';

const slug = { type: 'string', maxLength: 39 } as const;
const uuid = { type: 'string', format: 'uuid' } as const;

/** JSON Schema `approvals/slug.params`. */
export const slugParams = {
  $id: 'approvals/slug.params', type: 'object', required: ['slug'], properties: { slug },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/work-item.params`. */
export const workItemParams = {
  $id: 'approvals/work-item.params', type: 'object', required: ['slug', 'id'], properties: { slug, id: uuid },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/instance.params`. */
export const instanceParams = {
  $id: 'approvals/instance.params', type: 'object', required: ['slug', 'id'], properties: { slug, id: uuid },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/document-number.params`: `{slug}-{yyyy}-{000001}`. */
export const documentNumberParams = {
  $id: 'approvals/document-number.params', type: 'object', required: ['slug', 'documentNumber'],
  properties: { slug, documentNumber: { type: 'string', maxLength: 64 } },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/second-device.params`. */
export const secondDeviceParams = {
  $id: 'approvals/second-device.params', type: 'object', required: ['slug', 'requestId'], properties: { slug, requestId: uuid },
} as const satisfies RouteSchema;
