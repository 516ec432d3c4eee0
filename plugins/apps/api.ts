/**
 * The apps plugin's public API: service refs, DTOs and shared response schemas other plugins may
 * import. (A plugin imports only another plugin's `api.ts`, never its other files.)
 * @see docs/api/apps.md
 */
import { createServiceRef } from '../../core/index.ts';
import type { AppGroupsService, ApplicationsService, MarketplaceService } from './service-interfaces.ts';

export type {
  AppGroupDto, AppGroupInput, AppGroupsService, ApplicationDto, ApplicationEnvironment, ApplicationKind, ApplicationsService,
  ApplicationStatus, ApplicationUpdate, ApplicationWithSecret, ClientConfig, GrantType, HostedLoginBranding, ListingDto, MarketplaceService, NewApplication, SamlServiceProvider,
  ServiceModel, SocialProvider, TokenEndpointAuthMethod,
} from './service-interfaces.ts';

/** Service refs of the apps plugin. */
export const appsRefs = {
  appGroups: createServiceRef<AppGroupsService>('apps.appGroups'),
  applications: createServiceRef<ApplicationsService>('apps.applications'),
  marketplace: createServiceRef<MarketplaceService>('apps.marketplace'),
};

/** Schemas of an app group's `name`, `description`, `iconUrl`, `brandColor`: bodies of other plugins that create one reuse them. */
export { appGroupBasics } from './schemas/app-group.body.ts';

/** Shared response schemas other plugins reference (`schemaRef`). */
export { appGroup as appGroupSchema, application as applicationSchema } from './schemas/responses.ts';
