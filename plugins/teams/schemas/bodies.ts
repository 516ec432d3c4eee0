import type { RouteSchema } from '../../../core/index.ts';

const uuid = { type: 'string', format: 'uuid' } as const;
const nullableUuid = { type: ['string', 'null'], format: 'uuid' } as const;
const name = { type: 'string', format: 'display-name', minLength: 1, maxLength: 100, pattern: '\\S' } as const;
const kind = { type: ['string', 'null'], format: 'display-name', maxLength: 50 } as const;
/** The board seal: a WebAuthn assertion as a JSON string, from `POST /api/passkey/stepup/options`. */
const seal = { type: 'string', maxLength: 20000 } as const;

/** JSON Schema `teams/create-team.body`. */
export const createTeamBody = {
  $id: 'teams/create-team.body', type: 'object', additionalProperties: false, required: ['Name'],
  properties: { Name: name, Kind: kind, LeadConnectedId: nullableUuid, ParentTeamId: nullableUuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/update-team.body`: at least one member. */
export const updateTeamBody = {
  $id: 'teams/update-team.body', type: 'object', additionalProperties: false, minProperties: 1,
  properties: { Name: name, Kind: kind, ParentTeamId: nullableUuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/lead.body`: `null` clears. */
export const leadBody = {
  $id: 'teams/lead.body', type: 'object', additionalProperties: false, required: ['LeadConnectedId'],
  properties: { LeadConnectedId: nullableUuid },
} as const satisfies RouteSchema;

/** JSON Schema `teams/add-member.body`. */
export const addMemberBody = {
  $id: 'teams/add-member.body', type: 'object', additionalProperties: false, required: ['ConnectedIdId'],
  properties: { ConnectedIdId: uuid, Resolution: { enum: ['add', 'replace', 'none'] } },
} as const satisfies RouteSchema;

/** JSON Schema `teams/relationship.body`: `member_of` edges come from team membership only. */
export const relationshipBody = {
  $id: 'teams/relationship.body', type: 'object', additionalProperties: false, required: ['SourceConnectedId', 'TargetConnectedId', 'Type'],
  properties: { SourceConnectedId: uuid, TargetConnectedId: uuid, Type: { enum: ['reporting', 'reference'] } },
} as const satisfies RouteSchema;

/** JSON Schema `teams/appoint.body`. */
export const appointBody = {
  $id: 'teams/appoint.body', type: 'object', additionalProperties: false, required: ['ConnectedIdId'],
  properties: { ConnectedIdId: uuid, SharePercent: { type: ['number', 'null'], minimum: 0, maximum: 100, multipleOf: 0.0001 }, SealAssertionJson: seal },
} as const satisfies RouteSchema;

/** JSON Schema `teams/board-remove.body`. */
export const boardRemoveBody = {
  $id: 'teams/board-remove.body', type: 'object', additionalProperties: false,
  properties: { SealAssertionJson: seal },
} as const satisfies RouteSchema;

/** JSON Schema `teams/chairman.body`: `null` clears. */
export const chairmanBody = {
  $id: 'teams/chairman.body', type: 'object', additionalProperties: false, required: ['LeadConnectedId'],
  properties: { LeadConnectedId: nullableUuid, SealAssertionJson: seal },
} as const satisfies RouteSchema;
