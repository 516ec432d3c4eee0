import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

const labels = { labelKo: { type: 'string' }, labelEn: { type: 'string' }, labelJa: { type: 'string' } } as const;

/** Shared schema `approvals/Form`. @see docs/api/approvals.md "Forms" */
export const form = {
  $id: 'approvals/Form', type: 'object', additionalProperties: false,
  required: ['id', 'docType', 'title', 'description', 'linkedRoleId', 'linkedPermissionScope', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' }, docType: { enum: ['permission', 'document', 'report'] }, title: { type: 'string' },
    description: NULLABLE_STRING, linkedRoleId: NULLABLE_STRING, linkedPermissionScope: NULLABLE_STRING, createdAt: DATE_TIME, updatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `approvals/forms.response`. */
export const formsResponse = {
  $id: 'approvals/forms.response', type: 'object', additionalProperties: false, required: ['workItems'],
  properties: { workItems: { type: 'array', items: schemaRef(form) } },
} as const satisfies RouteSchema;

/** `approvals/approval-line.response`. @see docs/api/approvals.md "Approval lines" */
export const approvalLineResponse = {
  $id: 'approvals/approval-line.response', type: 'object', additionalProperties: false, required: ['workItemId', 'positions'],
  properties: {
    workItemId: { type: 'string' },
    positions: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false,
        required: ['labelKo', 'labelEn', 'labelJa', 'resolveType', 'resolveRoleId', 'resolveMemberConnectedId'],
        properties: { ...labels, resolveType: { enum: ['drafter', 'role', 'member'] }, resolveRoleId: NULLABLE_STRING, resolveMemberConnectedId: NULLABLE_STRING },
      },
    },
  },
} as const satisfies RouteSchema;

/** `approvals/resolve-line.response`: the preview. @see docs/api/approvals.md "Resolving a line" */
export const resolveLineResponse = {
  $id: 'approvals/resolve-line.response', type: 'object', additionalProperties: false,
  required: ['workItemId', 'usesDefaultLine', 'approverCount', 'steps', 'unresolved'],
  properties: {
    workItemId: { type: 'string' }, usesDefaultLine: { type: 'boolean' }, approverCount: { type: 'integer' },
    steps: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['order', 'labelKo', 'labelEn', 'labelJa', 'kind', 'connectedId', 'name'],
        properties: { order: { type: 'integer' }, ...labels, kind: { enum: ['approver', 'receiver'] }, connectedId: { type: 'string' }, name: { type: 'string' } },
      },
    },
    unresolved: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['position', 'labelEn'], properties: { position: { type: 'integer' }, labelEn: { type: 'string' } } },
    },
  },
} as const satisfies RouteSchema;

/** Shared schema `approvals/Instance`: the read model. @see docs/api/approvals.md "The instance object" */
export const instance = {
  $id: 'approvals/Instance', type: 'object', additionalProperties: false,
  required: [
    'InstanceId', 'DocumentNumber', 'WorkItemId', 'DocType', 'Title', 'Body', 'Attachments', 'Status', 'RequesterConnectedId',
    'CreatorName', 'IsRequester', 'IsReceiver', 'MyStepStatus', 'LinkedRoleId', 'LinkedPermissionScope', 'Steps', 'CreatedAt', 'DecidedAt',
  ],
  properties: {
    InstanceId: { type: 'string' }, DocumentNumber: { type: 'string' }, WorkItemId: { type: 'string' },
    DocType: { enum: ['permission', 'document', 'report'] }, Title: { type: 'string' }, Body: { type: 'string' },
    Attachments: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false, required: ['Name', 'Sha256', 'Size'],
        properties: { Name: { type: 'string' }, Sha256: { type: 'string' }, Size: { type: 'integer' }, FileId: { type: 'string' } },
      },
    },
    Status: { enum: ['pending', 'approved', 'rejected', 'unroutable', 'sent'] },
    RequesterConnectedId: { type: 'string' }, CreatorName: { type: 'string' },
    IsRequester: { type: 'boolean' }, IsReceiver: { type: 'boolean' }, MyStepStatus: NULLABLE_STRING, LinkedRoleId: NULLABLE_STRING, LinkedPermissionScope: NULLABLE_STRING,
    Steps: {
      type: 'array',
      items: {
        type: 'object', additionalProperties: false,
        required: ['Order', 'LabelKo', 'LabelEn', 'LabelJa', 'Kind', 'ApproverConnectedId', 'ApproverName', 'Status', 'Reason', 'StampedAt'],
        properties: {
          Order: { type: 'integer' }, LabelKo: { type: 'string' }, LabelEn: { type: 'string' }, LabelJa: { type: 'string' },
          Kind: { enum: ['approver', 'receiver'] }, ApproverConnectedId: { type: 'string' }, ApproverName: { type: 'string' },
          Status: { enum: ['waiting', 'pending', 'approved', 'rejected', 'received', 'skipped'] }, Reason: NULLABLE_STRING, StampedAt: NULLABLE_DATE_TIME,
        },
      },
    },
    CreatedAt: DATE_TIME, DecidedAt: NULLABLE_DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `approvals/instances.response`. */
export const instancesResponse = {
  $id: 'approvals/instances.response', type: 'object', additionalProperties: false, required: ['Instances'],
  properties: { Instances: { type: 'array', items: schemaRef(instance) } },
} as const satisfies RouteSchema;

/** `approvals/stamp.response`: the instance, with `secondDevice` while rule 7 is in its notice phase. @see docs/api/approvals.md "Stamping" */
export const stampResponse = {
  ...instance,
  $id: 'approvals/stamp.response',
  properties: {
    ...instance.properties,
    secondDevice: {
      type: 'object', additionalProperties: false, required: ['notice', 'hasSecondDevice'],
      properties: { notice: { const: true }, hasSecondDevice: { type: 'boolean' } },
    },
  },
} as const satisfies RouteSchema;

/** `approvals/awaiting-second-device.response`: the 202 of `/stamp` in the required phase. @see docs/api/approvals.md "Second-device confirmation" */
export const awaitingSecondDeviceResponse = {
  $id: 'approvals/awaiting-second-device.response', type: 'object', additionalProperties: false, required: ['status', 'secondDevice'],
  properties: {
    status: { const: 'awaiting_second_device' },
    secondDevice: {
      type: 'object', additionalProperties: false, required: ['requestId', 'expiresAt', 'channel'],
      properties: { requestId: { type: 'string' }, expiresAt: DATE_TIME, channel: { enum: ['email', null] } },
    },
  },
} as const satisfies RouteSchema;

/** `approvals/settings.response`. @see docs/api/approvals.md "Settings" */
export const settingsResponse = {
  $id: 'approvals/settings.response', type: 'object', additionalProperties: false, required: ['secondDeviceConfirmation', 'secondDevicePhase', 'updatedAt'],
  properties: { secondDeviceConfirmation: { type: 'boolean' }, secondDevicePhase: { enum: ['notice', 'required'] }, updatedAt: NULLABLE_DATE_TIME },
} as const satisfies RouteSchema;

/** Shared schema `approvals/SecondDeviceRequest`: what the computer polls. @see docs/api/approvals.md "Second-device confirmation" */
export const secondDeviceRequest = {
  $id: 'approvals/SecondDeviceRequest', type: 'object', additionalProperties: false,
  required: ['requestId', 'status', 'instanceId', 'documentNumber', 'decision', 'channel', 'expiresAt', 'finishedAt', 'error'],
  properties: {
    requestId: { type: 'string' }, status: { enum: ['pending', 'completing', 'done', 'denied', 'refused', 'expired'] },
    instanceId: { type: 'string' }, documentNumber: { type: 'string' }, decision: { enum: ['approve', 'reject'] },
    channel: { enum: ['email', null] }, expiresAt: DATE_TIME, finishedAt: NULLABLE_DATE_TIME, error: NULLABLE_STRING,
  },
} as const satisfies RouteSchema;

/** `approvals/second-device-options.response`: what the second device shows and signs. */
export const secondDeviceOptionsResponse = {
  $id: 'approvals/second-device-options.response', type: 'object', additionalProperties: false,
  required: ['requestId', 'org', 'documentNumber', 'title', 'decision', 'reason', 'expiresAt', 'hasPasskey', 'options'],
  properties: {
    requestId: { type: 'string' },
    org: { type: 'object', additionalProperties: false, required: ['slug', 'name'], properties: { slug: { type: 'string' }, name: { type: 'string' } } },
    documentNumber: { type: 'string' }, title: { type: 'string' }, decision: { enum: ['approve', 'reject'] }, reason: NULLABLE_STRING,
    expiresAt: DATE_TIME, hasPasskey: { type: 'boolean' },
    options: { type: ['object', 'null'] },
    binding: {
      type: 'object', additionalProperties: false, required: ['version', 'nonce', 'purpose', 'subject', 'fields'],
      properties: {
        version: { const: 'aerie-stepup-v1' }, nonce: { type: 'string' }, purpose: { type: 'string' }, subject: { type: 'string' },
        fields: { type: 'array', items: { type: 'object', additionalProperties: false, required: ['key', 'value'], properties: { key: { type: 'string' }, value: { type: 'string' } } } },
      },
    },
  },
} as const satisfies RouteSchema;
