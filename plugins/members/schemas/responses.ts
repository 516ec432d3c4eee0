import { DATE_TIME, NULLABLE_DATE_TIME, NULLABLE_STRING, schemaRef, type RouteSchema } from '../../../core/index.ts';
import { accountSchema } from '../../accounts/api.ts';
import { assignmentSchema, membershipTypeSchema } from '../../rbac/api.ts';

const membershipRole = { enum: ['Owner', 'Admin', 'Member'] } as const;
const membershipStatus = { enum: ['active', 'suspended', 'revoked', 'invited'] } as const;

/** Shared schema `members/Member`: a member of an organization with their roles. @see docs/api/members.md */
export const member = {
  $id: 'members/Member',
  type: 'object',
  additionalProperties: false,
  required: ['ConnectedIdId', 'AccountId', 'Email', 'DisplayName', 'Role', 'Status', 'MembershipType', 'Roles', 'ReportingManagerId', 'Title', 'BoardChairman', 'BoardSharePercent', 'JoinedAt', 'UpdatedAt'],
  properties: {
    ConnectedIdId: { type: 'string' },
    AccountId: { type: 'string' },
    Email: NULLABLE_STRING,
    DisplayName: NULLABLE_STRING,
    Role: membershipRole,
    Status: membershipStatus,
    MembershipType: membershipTypeSchema,
    Roles: { type: 'array', items: schemaRef(assignmentSchema) },
    ReportingManagerId: NULLABLE_STRING,
    Title: NULLABLE_STRING,
    BoardChairman: { type: ['boolean', 'null'] },
    BoardSharePercent: { type: ['number', 'null'] },
    JoinedAt: DATE_TIME,
    UpdatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** Shared schema `members/Invitation`: an invitation as the organization sees it (never its token). */
export const invitation = {
  $id: 'members/Invitation',
  type: 'object',
  additionalProperties: false,
  required: ['InvitationId', 'Email', 'RoleId', 'RoleKey', 'Status', 'ExpiresAt', 'ReportingManagerId', 'BoardChairman', 'BoardSharePercent', 'InvitedBy', 'SendCount', 'LastSentAt', 'RespondedAt', 'ConnectedIdId', 'CreatedAt'],
  properties: {
    InvitationId: { type: 'string' },
    Email: { type: 'string' },
    RoleId: { type: ['string', 'null'], description: 'Null on an invitation SCIM provisioning sent: a plain membership, no role.' },
    RoleKey: { type: ['string', 'null'] },
    Status: { enum: ['pending', 'accepted', 'declined', 'cancelled', 'expired'] },
    ExpiresAt: DATE_TIME,
    ReportingManagerId: NULLABLE_STRING,
    BoardChairman: { type: ['boolean', 'null'] },
    BoardSharePercent: { type: ['number', 'null'] },
    InvitedBy: NULLABLE_STRING,
    SendCount: { type: 'integer' },
    LastSentAt: DATE_TIME,
    RespondedAt: NULLABLE_DATE_TIME,
    ConnectedIdId: NULLABLE_STRING,
    CreatedAt: DATE_TIME,
  },
} as const satisfies RouteSchema;

/** `members/members-list.response`. */
export const membersListResponse = {
  $id: 'members/members-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['Members'],
  properties: { Members: { type: 'array', items: schemaRef(member) } },
} as const satisfies RouteSchema;

/** `members/invitations-list.response`. */
export const invitationsListResponse = {
  $id: 'members/invitations-list.response',
  type: 'object',
  additionalProperties: false,
  required: ['Invitations'],
  properties: { Invitations: { type: 'array', items: schemaRef(invitation) } },
} as const satisfies RouteSchema;

const acceptedProperties = {
  Organization: {
    type: 'object',
    additionalProperties: false,
    required: ['id', 'slug', 'name', 'type'],
    properties: { id: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' }, type: { type: 'string' } },
  },
  Member: {
    type: 'object',
    additionalProperties: false,
    required: ['ConnectedIdId', 'Role', 'Status', 'MembershipType', 'Roles'],
    properties: { ConnectedIdId: { type: 'string' }, Role: membershipRole, Status: membershipStatus, MembershipType: membershipTypeSchema, Roles: { type: 'array', items: schemaRef(assignmentSchema) } },
  },
} as const;

/** `members/accepted.response`: the organization joined and the membership. */
export const acceptedResponse = {
  $id: 'members/accepted.response',
  type: 'object',
  additionalProperties: false,
  required: ['Organization', 'Member'],
  properties: acceptedProperties,
} as const satisfies RouteSchema;

/** `members/accepted-registered.response` (201): as accept, plus the new account and its session. */
export const acceptedRegisteredResponse = {
  $id: 'members/accepted-registered.response',
  type: 'object',
  additionalProperties: false,
  required: ['Organization', 'Member', 'sessionToken', 'expiresAt', 'account'],
  properties: { ...acceptedProperties, sessionToken: { type: 'string' }, expiresAt: DATE_TIME, account: schemaRef(accountSchema) },
} as const satisfies RouteSchema;

/** `members/declined.response`. */
export const declinedResponse = {
  $id: 'members/declined.response',
  type: 'object',
  additionalProperties: false,
  required: ['InvitationId', 'Status'],
  properties: { InvitationId: { type: 'string' }, Status: { const: 'declined' } },
} as const satisfies RouteSchema;
