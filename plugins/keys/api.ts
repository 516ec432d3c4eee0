/**
 * The keys plugin's public API: service refs, principal types and extension points other plugins
 * may import. (A plugin imports only another plugin's `api.ts`, never its other files.)
 */
import { createExtensionPoint, createServiceRef, type Delegation, type Principal } from '../../core/index.ts';
import type { SigningKeysService, ApiKeysService, MachineTokensService } from './service-interfaces.ts';

export type { SigningKeysService, ApiKeysService, MachineTokensService } from './service-interfaces.ts';


/**
 * A machine token on `/api/org/{slug}/*`: `id` is the API key that issued it.
 * @see docs/api/keys.md
 */
export interface MachinePrincipal extends Principal {
  type: 'machine';
  id: string;
  orgId: string;
  scopes: string[];
  /** Set when the issuing key is app-group-scoped. */
  appGroupId?: string;
  /** Set when the issuing key is bound to a service account (the token's `sub`). */
  serviceAccountId?: string;
}

/**
 * An organization API key on `/api/public/v1/*` (`X-Api-Key` or `Authorization: Bearer ah_live_…`).
 * @see docs/api/accounts.md
 */
export interface ApiKeyPrincipal extends Principal {
  type: 'apiKey';
  id: string;
  orgId: string;
  scopes: string[];
  /** Set for app-group-scoped keys (they get 401 on organization-wide endpoints). */
  appGroupId?: string;
  serviceAccountId?: string;
}

/** An API key as listed (never its value). @see docs/api/keys.md */
export interface ApiKeyDto {
  id: string;
  name: string;
  /** Last 4 characters of the value, to tell keys apart. */
  hint: string;
  appGroupId: string | null;
  scopes: string[];
  /** The token lifetime ceiling; `null` = default (300 s). */
  maxTokenLifetimeSeconds: number | null;
  serviceAccountId: string | null;
  createdAt: string;
  rotatedAt: string | null;
  revokedAt: string | null;
}

/** Status of a service account (or agent badge) a key can be bound to. @see docs/api/keys.md */
export type ServiceAccountStatus = 'active' | 'suspended' | 'revoked';

/**
 * Answers a service account's status in an organization, or `null` when it does not exist there.
 * Contributed by the plugin that owns service accounts / agent badges; with none, binding a key to a
 * service account is refused and bound keys fail closed.
 */
export type ServiceAccountDirectory = (orgId: string, serviceAccountId: string) => Promise<ServiceAccountStatus | null>;

/** Answers whether an app group exists in an organization (contributed by the app-groups plugin). */
export type AppGroupDirectory = (orgId: string, appGroupId: string) => Promise<boolean>;

export const keysRefs = {
  signingKeys: createServiceRef<SigningKeysService>('keys.signingKeys'),
  apiKeys: createServiceRef<ApiKeysService>('keys.apiKeys'),
  machineTokens: createServiceRef<MachineTokensService>('keys.machineTokens'),
};

/**
 * Answers an organization's issuer discovery document in place of the keys plugin's own (which
 * describes machine tokens only): the OpenID provider's, handed over with `delegate`. `undefined`
 * leaves the keys plugin's document.
 */
export type IssuerDiscovery = (slug: string) => Promise<Delegation | undefined>;

export const keysExtensions = {
  /** The last contribution is asked. */
  serviceAccounts: createExtensionPoint<ServiceAccountDirectory>('keys.serviceAccounts'),
  /** The last contribution is asked. */
  appGroups: createExtensionPoint<AppGroupDirectory>('keys.appGroups'),
  /** The last contribution is asked (the oidc plugin's OpenID provider). */
  issuerDiscovery: createExtensionPoint<IssuerDiscovery>('keys.issuerDiscovery'),
};

/**
 * Throws 401 for app-group-scoped credentials; call it first in organization-wide endpoints.
 * @see docs/api/accounts.md: "an app-group-scoped key gets 401 there"
 */
export { requireOrganizationWideKey } from './org-wide.ts';
export { appGroupNotFound } from './errors.ts';

/** Shared response schema other plugins reference or narrow: an API key as listed (never its value). */
export { apiKey as apiKeySchema } from './schemas/responses.ts';
