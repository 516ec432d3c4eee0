import { coreRefs, definePlugin } from '../../core/index.ts';
import { registerBoxCommands } from '../../appliance/api.ts';
import { registerRoostCommands } from './keygen.command.ts';
import { loadRearmKey } from './rearm-key.ts';
import { rearmRoutes } from './routes/rearm.route.ts';
import { specSheetRoute } from './routes/spec-sheet.route.ts';

/** The keys the roost plugin owns in the configuration (`config.schema.json`), validated. */
interface RoostConfig {
  /** Signing box re-arm key (PKCS#8 PEM or base64url scalar); else the key file from `aerie roost keygen`. */
  roost: { rearmKey?: string };
}

export default definePlugin({
  id: 'roost',
  deps: { config: coreRefs.config, crypto: coreRefs.crypto, clock: coreRefs.clock, db: coreRefs.db, audit: coreRefs.audit },
  init({ config, crypto, clock, db, audit }, ctx) {
    const { roost } = ctx.pluginConfig<RoostConfig>();
    const key = loadRearmKey(roost.rearmKey, config.dataDir, crypto.envelope);
    if (!key) ctx.logger.info('no re-arm key configured: re-arm tickets answer 503 ROOST_REARM_DISABLED');
    ctx.routes(...rearmRoutes({ key, clock, audit, db }), specSheetRoute(key, config.baseUrl, clock));
  },
  // `aerie box …` is the demo signing box (appliance/simulator): roost's appliance, so roost mounts it.
  commands(program, env) {
    registerRoostCommands(program, env);
    registerBoxCommands(program);
  },
});
