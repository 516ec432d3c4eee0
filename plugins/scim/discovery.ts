import { GROUP_SCHEMA_URN } from './group-schema.ts';
import { USER_SCHEMA_URN } from './user-schema.ts';
import { MAX_PAGE } from './users.service.ts';

const SCHEMA_URN = 'urn:ietf:params:scim:schemas:core:2.0:Schema';

const attr = (name: string, type: string, extra: Record<string, unknown> = {}) => ({
  name, type, multiValued: false, required: false, caseExact: false, mutability: 'readWrite', returned: 'default', uniqueness: 'none', ...extra,
});

/** The User schema (RFC 7643 §4.1, the attributes Aerie keeps). */
export function userSchema(base: string) {
  return {
    schemas: [SCHEMA_URN], id: USER_SCHEMA_URN, name: 'User', description: 'A member of the organization',
    attributes: [
      attr('userName', 'string', { required: true, uniqueness: 'server' }),
      attr('externalId', 'string', { caseExact: true }),
      attr('name', 'complex', {
        subAttributes: ['formatted', 'familyName', 'givenName', 'middleName', 'honorificPrefix', 'honorificSuffix'].map((n) => attr(n, 'string')),
      }),
      attr('displayName', 'string'),
      attr('active', 'boolean'),
      attr('emails', 'complex', {
        multiValued: true,
        // The one element is the account's address: provisioning sets it once, never changes it.
        subAttributes: [attr('value', 'string', { mutability: 'immutable' }), attr('type', 'string', { canonicalValues: ['work'] }), attr('primary', 'boolean')],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${USER_SCHEMA_URN}` },
  };
}

/** The Group schema (RFC 7643 §4.2): a role of the organization and the Users holding it. */
export function groupSchema(base: string) {
  return {
    schemas: [SCHEMA_URN], id: GROUP_SCHEMA_URN, name: 'Group', description: 'A role of the organization; its members hold it',
    attributes: [
      attr('displayName', 'string', { required: true }),
      attr('externalId', 'string', { caseExact: true }),
      attr('members', 'complex', {
        multiValued: true,
        subAttributes: [
          attr('value', 'string', { caseExact: true, mutability: 'immutable' }),
          attr('display', 'string', { mutability: 'readOnly' }),
          attr('$ref', 'reference', { caseExact: true, mutability: 'immutable', referenceTypes: ['User'] }),
          attr('type', 'string', { mutability: 'immutable', canonicalValues: ['User'] }),
        ],
      }),
    ],
    meta: { resourceType: 'Schema', location: `${base}/Schemas/${GROUP_SCHEMA_URN}` },
  };
}

/** Every schema Aerie serves, by id. */
export function schemas(base: string) {
  return [userSchema(base), groupSchema(base)];
}

/** `/ServiceProviderConfig` (RFC 7643 §5). */
export function serviceProviderConfig(base: string) {
  return {
    schemas: ['urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig'],
    patch: { supported: true }, bulk: { supported: false, maxOperations: 0, maxPayloadSize: 0 },
    filter: { supported: true, maxResults: MAX_PAGE }, changePassword: { supported: false }, sort: { supported: false }, etag: { supported: false },
    authenticationSchemes: [{ type: 'oauthbearertoken', name: 'SCIM token', description: 'Authorization: Bearer scim_… (created in the organization settings)', primary: true }],
    meta: { resourceType: 'ServiceProviderConfig', location: `${base}/ServiceProviderConfig` },
  };
}

/** `/ResourceTypes` entries (RFC 7643 §6). */
export function resourceTypes(base: string) {
  return [
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'User', name: 'User', endpoint: '/Users', schema: USER_SCHEMA_URN,
      meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/User` },
    },
    {
      schemas: ['urn:ietf:params:scim:schemas:core:2.0:ResourceType'], id: 'Group', name: 'Group', endpoint: '/Groups', schema: GROUP_SCHEMA_URN,
      description: "The organization's roles", meta: { resourceType: 'ResourceType', location: `${base}/ResourceTypes/Group` },
    },
  ];
}
