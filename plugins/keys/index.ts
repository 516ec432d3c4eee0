import { coreRefs, definePlugin } from '../../core/index.ts';
import { orgsExtensions } from '../orgs/api.ts';
import { keysExtensions, keysRefs } from './api.ts';
import { SigningKeysService } from './signing-keys.service.ts';
import { ApiKeysService } from './api-keys.service.ts';
import { MachineTokensService } from './machine-tokens.service.ts';
import { KeyStatusService } from './key-status.service.ts';
import { keysInternalRefs } from './internal-refs.ts';
import { apiKeyAuthScheme } from './api-key.auth.ts';
import { machineTokenAuthScheme } from './machine-token.auth.ts';
import { wellKnownRoutes } from './routes/well-known.route.ts';
import { signingKeyRoutes } from './routes/signing-key.route.ts';
import { apiKeyRoutes } from './routes/api-keys.route.ts';
import { m2mTokenRoutes } from './routes/m2m-token.route.ts';

/** The schedule that deletes revocation markers whose time is up, every 10 minutes. */
const MARKER_SWEEP = 'keys.purge-revocation-markers';

export default definePlugin({
  id: 'keys',
  deps: {
    config: coreRefs.config, authz: coreRefs.authz, jobs: coreRefs.jobs,
    signingKeys: keysRefs.signingKeys, apiKeys: keysRefs.apiKeys, machineTokens: keysRefs.machineTokens,
    keyStatus: keysInternalRefs.keyStatus,
  },
  register(reg) {
    reg.extensionPoint(keysExtensions.serviceAccounts);
    reg.extensionPoint(keysExtensions.appGroups);
    reg.extensionPoint(keysExtensions.issuerDiscovery);
    reg.service(keysInternalRefs.keyStatus, KeyStatusService);
    reg.service(keysRefs.signingKeys, SigningKeysService);
    reg.service(keysRefs.apiKeys, ApiKeysService);
    reg.service(keysRefs.machineTokens, MachineTokensService);
  },
  async init({ config, authz, jobs, signingKeys, apiKeys, machineTokens, keyStatus }, ctx) {
    // The organization's signing key is made in its creation transaction.
    ctx.extend(orgsExtensions.onCreate, async (org, trx) => {
      await signingKeys.createFor(org, trx);
    });
    ctx.authScheme(apiKeyAuthScheme(apiKeys));
    ctx.authScheme(machineTokenAuthScheme(machineTokens));
    ctx.routes(
      ...wellKnownRoutes(config, signingKeys, ctx.extensions(keysExtensions.issuerDiscovery)),
      ...signingKeyRoutes(signingKeys),
      ...apiKeyRoutes(apiKeys, authz),
      ...m2mTokenRoutes(machineTokens),
    );
    await keyStatus.start(ctx.logger);
    ctx.onShutdown(() => keyStatus.stop());
    jobs.schedule(MARKER_SWEEP, { everyMinutes: 10 }, async () => void (await apiKeys.purgeExpiredMarkers()));
  },
});
