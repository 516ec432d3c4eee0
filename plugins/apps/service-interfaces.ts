/**
 * The apps plugin's service interfaces and DTOs: what other plugins may call through its refs
 * (`api.ts`). The classes that implement them stay inside the plugin.
 * @see docs/api/apps.md
 */

/** Platform of an application. Spa and Native are public clients; Web and Machine are confidential. */
export type ApplicationKind = 'Web' | 'Spa' | 'Native' | 'Machine';
/** Environment of an application. */
export type ApplicationEnvironment = 'Development' | 'Production';
/** Whether an application may be used. */
export type ApplicationStatus = 'active' | 'disabled';
/** OAuth 2.0 grant types an application may use. */
export type GrantType = 'authorization_code' | 'refresh_token' | 'client_credentials';
/** How a client authenticates at the token endpoint (`none`: public clients). */
export type TokenEndpointAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** The OIDC client configuration the OpenID provider reads. @see docs/api/apps.md */
export interface ClientConfig {
  /** Exact redirect URIs (no wildcards, no fragments). */
  redirectUris: string[];
  postLogoutRedirectUris: string[];
  grantTypes: GrantType[];
  allowedScopes: string[];
  /** Always true for public clients. */
  pkceRequired: boolean;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  /**
   * The organization's own application (default `true`): its end users sign in without a consent
   * screen. `false` for a third party's application the organization registered: the hosted login
   * asks the end user's consent to the scopes it requests (docs/api/signin.md "Consent").
   */
  firstParty: boolean;
}

/** Social sign-in providers the hosted login page may offer. */
export type SocialProvider = 'google' | 'github' | 'apple' | 'microsoft';
/** How an app group's product is offered. */
export type ServiceModel = 'SaaS' | 'PaaS';

/** The hosted login page's look and sign-in methods for an app group. @see docs/api/apps.md */
export interface HostedLoginBranding {
  /** `#RRGGBB` */
  primaryColor: string | null;
  /** `#RRGGBB` */
  backgroundColor: string | null;
  heroTitle: string | null;
  heroSubtitle: string | null;
  passkeyEnabled: boolean;
  magicLinkEnabled: boolean;
  /** Sign-in with an Aerie account on the hosted login (`…/login/{applicationKey}/aerie`). */
  aerieAccountEnabled: boolean;
  socialProviders: SocialProvider[];
}

/** An application's SAML service-provider registration. */
export interface SamlServiceProvider {
  /** An absolute https URL. */
  entityId: string;
  /** Assertion consumer service URL, absolute https. */
  acsUrl: string;
}

/** An app group as answered. */
export interface AppGroupDto {
  id: string;
  /** `appgroup_…` */
  publicKey: string;
  name: string;
  description: string | null;
  iconUrl: string | null;
  brandColor: string | null;
  monetizationEnabled: boolean;
  branding: HostedLoginBranding;
  /** The WebAuthn RP ID of the group's hosted login, `null` for the service's own. */
  passkeyRpId: string | null;
  serviceModel: ServiceModel | null;
  /** The product's category. */
  field: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What a new app group holds (and what an update may change; `null` clears). */
export interface AppGroupInput {
  name?: string;
  description?: string | null;
  iconUrl?: string | null;
  brandColor?: string | null;
  monetizationEnabled?: boolean;
  /** Replaces the branding; members left out get their defaults. */
  branding?: Partial<HostedLoginBranding>;
  passkeyRpId?: string | null;
  serviceModel?: ServiceModel | null;
  field?: string | null;
}

/** An application as answered: never its secret. */
export interface ApplicationDto extends ClientConfig {
  id: string;
  appGroupId: string;
  name: string;
  kind: ApplicationKind;
  environment: ApplicationEnvironment;
  status: ApplicationStatus;
  /** `client_…`, the public client id. */
  clientKey: string;
  /** true for Web and Machine (they have a secret). */
  confidential: boolean;
  saml: SamlServiceProvider | null;
  secretRotatedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** An application with its client secret, shown once (`null` for public clients). */
export interface ApplicationWithSecret extends ApplicationDto {
  clientSecret: string | null;
}

/** A new application: members left out get the kind's defaults. */
export interface NewApplication extends Partial<ClientConfig> {
  appGroupId: string;
  name: string;
  kind: ApplicationKind;
  environment: ApplicationEnvironment;
  saml?: SamlServiceProvider | null;
}

/** What an update may change: the name, the client configuration, the SAML registration (`null` clears). */
export type ApplicationUpdate = Partial<ClientConfig> & { name?: string; saml?: SamlServiceProvider | null };

/**
 * `apps.appGroups`: an organization's app groups. Ids of other organizations look absent.
 * @see docs/api/apps.md
 */
export interface AppGroupsService {
  /** The organization's groups, oldest first. */
  list(orgId: string): Promise<AppGroupDto[]>;
  /** One group of the organization, or `undefined`. */
  get(orgId: string, groupId: string): Promise<AppGroupDto | undefined>;
  /**
   * Creates a group and its first application (Web, Development) in one transaction; audits both
   * and emits `org.app_group.created`. The caller has checked who may set `monetizationEnabled`.
   */
  create(orgId: string, createdBy: string | null, input: AppGroupInput & { name: string }): Promise<AppGroupDto & { application: ApplicationWithSecret }>;
  /** @throws 404 `NOT_FOUND` for an unknown or foreign group; 400 `RP_ID_INVALID` */
  update(orgId: string, groupId: string, input: AppGroupInput): Promise<AppGroupDto>;
  /** Deletes the group and its applications. @throws 404 `NOT_FOUND` */
  delete(orgId: string, groupId: string): Promise<void>;
  /** The organization's group with this public key (`appgroup_…`), or `undefined` (also for another organization's). */
  findByPublicKey(orgId: string, publicKey: string): Promise<AppGroupDto | undefined>;
  /** true when the group exists in the organization. */
  exists(orgId: string, groupId: string): Promise<boolean>;
}

/** An app group's marketplace listing. */
export interface ListingDto {
  /** `appgroup_…` */
  groupKey: string;
  listed: boolean;
  /** When it was (first, in this listing) listed; `null` when not listed. */
  listedAt: string | null;
}

/**
 * `apps.marketplace`: listing app groups (platform administrators) and installing listed ones into
 * other organizations. @see docs/api/apps.md "Marketplace listing and installations"
 */
export interface MarketplaceService {
  /** Lists or delists the app group with this key (audited on its organization's chain). @throws 404 */
  setListing(groupKey: string, listed: boolean, byAccountId: string): Promise<ListingDto>;
  /**
   * Installs a listed app group into `orgId` (idempotent; audited `org.integration.enabled` once).
   * @returns `created: false` when it was installed already
   * @throws 404 `APP_NOT_ON_MARKETPLACE` (unknown or not listed), 400 `OWN_APP` (the group is `orgId`'s own)
   */
  install(orgId: string, groupKey: string, byAccountId: string | null): Promise<{ appGroupId: string; installedAt: string; created: boolean }>;
  /** Which of `orgIds` installed the app group. */
  installedAmong(appGroupId: string, orgIds: readonly string[]): Promise<string[]>;
  /** Whether the app group is listed (published) on the marketplace now; `false` for an unknown id. */
  isListed(appGroupId: string): Promise<boolean>;
}

/**
 * `apps.applications`: an organization's applications (OIDC clients). Secrets are shown once and
 * stored as SHA-256 hashes. Ids of other organizations look absent.
 * @see docs/api/apps.md
 */
export interface ApplicationsService {
  /** The organization's applications, oldest first; only one group's with `appGroupId`. */
  list(orgId: string, appGroupId?: string): Promise<ApplicationDto[]>;
  /** One application of the organization, or `undefined`. */
  get(orgId: string, appId: string): Promise<ApplicationDto | undefined>;
  /** @throws 400 `VALIDATION_FAILED` (unknown group, redirect URI), `CLIENT_CONFIG_INVALID` (also the SAML registration) */
  create(orgId: string, input: NewApplication): Promise<ApplicationWithSecret>;
  /** @throws 404 `NOT_FOUND`; 400 as for create */
  update(orgId: string, appId: string, input: ApplicationUpdate): Promise<ApplicationDto>;
  /** @throws 404 `NOT_FOUND` */
  setStatus(orgId: string, appId: string, status: ApplicationStatus): Promise<ApplicationDto>;
  /** A new secret; the old one stops matching at once. @throws 404, 400 `CLIENT_CONFIG_INVALID` for a public client */
  rotateSecret(orgId: string, appId: string): Promise<ApplicationWithSecret>;
  /** @throws 404 `NOT_FOUND` */
  delete(orgId: string, appId: string): Promise<void>;
  /**
   * The application with this client key (`client_…`), in whichever organization holds it, with that
   * organization's id; `undefined` for an unknown or malformed key. Callers that act for one
   * organization compare `orgId`. Disabled applications are answered too (check `status`).
   */
  findByClientKey(clientKey: string): Promise<(ApplicationDto & { orgId: string }) | undefined>;
  /** true when `secret` is the current secret of the active application with `clientKey` (constant-time). */
  verifySecret(clientKey: string, secret: string): Promise<boolean>;
}
