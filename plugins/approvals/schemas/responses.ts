import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

const labels = { labelKo: { type: 'string' }, labelEn: { type: 'string' }, labelJa: { type: 'string' } } as const;

/** Shared schema `approvals/Form`. @see docs/api/approvals.md "Forms" */
export const form = {
  $id: 'approvals/Form', type: 'object', additionalProperties: false,
  required: ['id', 'docType', 'title', 'description', 'linkedRoleId', 'createdAt', 'updatedAt'],
  properties: {
    id: { type: 'string' }, docType: { enum: ['permission', 'document', 'report'] }, title: { type: 'string' },
    description: NULLABLE_STRING, linkedRoleId: NULLABLE_STRING, createdAt: DATE_TIME, updatedAt: DATE_TIME,
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
    'CreatorName', 'IsRequester', 'IsReceiver', 'MyStepStatus', 'LinkedRoleId', 'Steps', 'CreatedAt', 'DecidedAt',
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
    IsRequester: { type: 'boolean' }, IsReceiver: { type: 'boolean' }, MyStepStatus: NULLABLE_STRING, LinkedRoleId: NULLABLE_STRING,
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
