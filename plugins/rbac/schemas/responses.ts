import { DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';

/** Membership types a member's roles give them. @see docs/api/roles.md */
export const membershipTypeSchema = { enum: ['Director', 'Member', 'Freelancer', 'Guest'] } as const;

/** Shared schema `rbac/Permission`: a scope expression of a role. @see docs/api/roles.md */
export const permission = {
  $id: 'rbac/Permission',
  type: 'object',
  additionalProperties: false,
  required: ['TemplateId', 'Scope', 'BaseScope', 'CreatedAt'],
  properties: { TemplateId: { type: 'string' }, Scope: { type: 'string' }, BaseScope: { type: 'string' }, CreatedAt: DATE_TIME },
} as const satisfies RouteSchema;

/** Shared schema `rbac/Role`: a role with its permissions. @see docs/api/roles.md */
export const role = {
  $id: 'rbac/Role',
  type: 'object',
  additionalProperties: false,
  required: ['RoleId', 'Name', 'RoleKey', 'Description', 'RequiresApproval', 'IsPreset', 'IsActive', 'Variables', 'Permissions', 'CreatedAt', 'UpdatedAt'],
  properties: {
    RoleId: { type: 'string' },
    Name: { type: 'string' },
    RoleKey: { type: 'string' },
    Description: NULLABLE_STRING,
    RequiresApproval: { type: 'boolean' },
    IsPreset: { type: 'boolean' },
    IsActive: { type: 'boolean' },
    Variables: { type: 'array', items: { type: 'string' } },
    Permissions: { type: 'array', items: schemaRef(permission) },
    CreatedAt: DATE_TIME,
    UpdatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `rbac/Assignment`: a role held by a member, with the permissions snapshot it grants. */
export const assignment = {
  $id: 'rbac/Assignment',
  type: 'object',
  required: ['ConnectedIdRoleId', 'ConnectedIdId', 'RoleId', 'RoleKey', 'Variables', 'Permissions', 'AssignedAt', 'SnapshottedAt'],
  properties: {
    ConnectedIdRoleId: { type: 'string' },
    ConnectedIdId: { type: 'string' },
    RoleId: { type: 'string' },
    RoleKey: { type: 'string' },
    Variables: { type: 'object', additionalProperties: { type: 'string' } },
    Permissions: { type: 'array', items: { type: 'string' } },
    AssignedAt: DATE_TIME,
    SnapshottedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `rbac/assignment.response`: the assignment and the member's membership type after it (201 new, 200 re-snapshot). */
export const assignmentResponse = {
  $id: 'rbac/assignment.response',
  allOf: [schemaRef(assignment), { type: 'object', required: ['MembershipType'], properties: { MembershipType: membershipTypeSchema } }],
} as const satisfies RouteSchema;

/** `rbac/roles-list.response`. */
export const rolesListResponse = {
  $id: 'rbac/roles-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['Roles'],
  properties: { Roles: { type: 'array', items: schemaRef(role) } },
} as const satisfies RouteSchema;

/** `rbac/scopes.response`: the scope catalog. */
export const scopesResponse = {
  $id: 'rbac/scopes.response',
  type: 'object',
  additionalProperties: false,
  required: ['Scopes'],
  properties: {
    Scopes: {
      type: 'array',
      items: { type: 'object', additionalProperties: false, required: ['Scope', 'Description', 'Plugin'], properties: { Scope: { type: 'string' }, Description: { type: 'string' }, Plugin: { type: 'string' } } },
    },
  },
} as const satisfies RouteSchema;

/** `rbac/sod-report.response`: plain members holding both halves of a forbidden pair. */
export const sodReportResponse = {
  $id: 'rbac/sod-report.response',
  type: 'object',
  additionalProperties: false,
  required: ['isValid', 'conflicts'],
  properties: {
    isValid: { type: 'boolean' },
    conflicts: {
      type: 'array',
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['connectedIdId', 'accountId', 'a', 'b'],
        properties: { connectedIdId: { type: 'string' }, accountId: { type: 'string' }, a: { type: 'string' }, b: { type: 'string' } },
      },
    },
  },
} as const satisfies RouteSchema;
