import type { RouteSchema } from '../../../core/index.ts';

const uuid = { type: 'string', format: 'uuid' } as const;
const nullableUuid = { type: ['string', 'null'], format: 'uuid' } as const;
const label = { type: 'string', minLength: 1, maxLength: 100, pattern: '\\S' } as const;
/** The seal: a WebAuthn assertion as a JSON string, from `POST /api/passkey/stepup/options`. */
const seal = { type: 'string', maxLength: 20000 } as const;

/** JSON Schema `approvals/create-form.body`. A `permission` form names exactly one of `linkedRoleId`, `linkedPermissionScope`; other kinds neither. */
export const createFormBody = {
  $id: 'approvals/create-form.body', type: 'object', additionalProperties: false, required: ['docType', 'title'],
  properties: {
    docType: { enum: ['permission', 'document', 'report'] },
    title: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    description: { type: ['string', 'null'], maxLength: 2000 },
    linkedRoleId: nullableUuid,
    linkedPermissionScope: { type: ['string', 'null'], minLength: 1, maxLength: 200 },
  },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/approval-line.body`: replaces every position. */
export const approvalLineBody = {
  $id: 'approvals/approval-line.body', type: 'object', additionalProperties: false, required: ['positions'],
  properties: {
    positions: {
      type: 'array', maxItems: 20,
      items: {
        type: 'object', additionalProperties: false, required: ['labelKo', 'labelEn', 'labelJa', 'resolveType'],
        properties: {
          labelKo: label, labelEn: label, labelJa: label,
          resolveType: { enum: ['drafter', 'role', 'member'] },
          resolveRoleId: nullableUuid,
          resolveMemberConnectedId: nullableUuid,
        },
      },
    },
  },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/submit.body`. */
export const submitBody = {
  $id: 'approvals/submit.body', type: 'object', additionalProperties: false, required: ['WorkItemId', 'Title', 'Body'],
  properties: {
    WorkItemId: uuid,
    Title: { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' },
    Body: { type: 'string', maxLength: 200000 },
    Attachments: {
      type: 'array', maxItems: 50,
      items: {
        oneOf: [
          {
            type: 'object', additionalProperties: false, required: ['Name', 'Sha256', 'Size'],
            properties: {
              Name: { type: 'string', minLength: 1, maxLength: 255 },
              Sha256: { type: 'string', pattern: '^[0-9a-f]{64}$' },
              Size: { type: 'integer', minimum: 0 },
            },
          },
          { type: 'object', additionalProperties: false, required: ['FileId'], properties: { FileId: uuid } },
        ],
      },
    },
    SealAssertionJson: seal,
  },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/stamp.body`. */
export const stampBody = {
  $id: 'approvals/stamp.body', type: 'object', additionalProperties: false, required: ['Decision'],
  properties: {
    Decision: { enum: ['approve', 'reject'] },
    Reason: { type: ['string', 'null'], maxLength: 2000 },
    SealAssertionJson: seal,
  },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/settings.body`: rule 7's per-organization switch. */
export const settingsBody = {
  $id: 'approvals/settings.body', type: 'object', additionalProperties: false, required: ['secondDeviceConfirmation'],
  properties: { secondDeviceConfirmation: { type: 'boolean' } },
} as const satisfies RouteSchema;

/** The one-time link's token, as the page read it from the link's fragment. */
const linkToken = { type: 'string', minLength: 16, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$' } as const;

/** JSON Schema `approvals/second-device-link.body`: `{Token}` (options, deny). */
export const secondDeviceLinkBody = {
  $id: 'approvals/second-device-link.body', type: 'object', additionalProperties: false, required: ['Token'],
  properties: { Token: linkToken },
} as const satisfies RouteSchema;

/** JSON Schema `approvals/second-device-confirm.body`: `{Token, SealAssertionJson}`. */
export const secondDeviceConfirmBody = {
  $id: 'approvals/second-device-confirm.body', type: 'object', additionalProperties: false, required: ['Token'],
  properties: { Token: linkToken, SealAssertionJson: seal },
} as const satisfies RouteSchema;
