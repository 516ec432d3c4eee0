import type { Logger } from 'pino';
import { coreRefs, inject, injectable, type AerieConfig, type Clock, type CryptoService, type Database } from '../../core/index.ts';
import { appsRefs, type ApplicationsService } from '../apps/api.ts';
import { endUsersRefs, type EndUserSignInService } from '../endusers/api.ts';
import { keysRefs, type SigningKeysService } from '../keys/api.ts';
import type { AerieAccountSignIn } from './aerie-account.ts';
import { oidcInternalRefs } from './internal-refs.ts';
import type { ProviderDeps } from './provider-factory.ts';

/**
 * What every organization's provider and its token routes are built with ({@link ProviderDeps}): the
 * kernel's and other plugins' services, `{login_url}`, and `tenant_orgs` from the Aerie-account sign-in.
 */
@injectable()
export class ProviderContext implements ProviderDeps {
  readonly loginUrl: string;
  readonly logger: Logger;

  constructor(
    @inject(coreRefs.db.id) readonly db: Database,
    @inject(coreRefs.clock.id) readonly clock: Clock,
    @inject(coreRefs.crypto.id) readonly crypto: CryptoService,
    @inject(coreRefs.config.id) config: AerieConfig,
    @inject(coreRefs.logger.id) logger: Logger,
    @inject(keysRefs.signingKeys.id) readonly signingKeys: SigningKeysService,
    @inject(appsRefs.applications.id) readonly applications: ApplicationsService,
    @inject(endUsersRefs.signIn.id) readonly signIn: EndUserSignInService,
    @inject(oidcInternalRefs.aerieAccount.id) private readonly aerieAccount: AerieAccountSignIn,
  ) {
    this.loginUrl = config.loginUrl;
    this.logger = logger.child({ plugin: 'oidc' });
  }

  /** `tenant_orgs` of a token from a sign-in with an Aerie account; `[]` without. */
  tenantOrgs = (orgId: string, appGroupId: string, endUserId: string): Promise<Array<{ slug: string; name: string }>> =>
    this.aerieAccount.tenantOrgs(orgId, appGroupId, endUserId);
}
