import { coreRefs, definePlugin } from '../../core/index.ts';
import { registerBoxCommands } from '../../appliance/simulator/commands.ts';
import { registerRoostCommands } from './keygen.command.ts';
import { loadRearmKey } from './rearm-key.ts';
import { rearmRoutes } from './routes/rearm.route.ts';
import { specSheetRoute } from './routes/spec-sheet.route.ts';

export default definePlugin({
  id: 'roost',
  deps: { config: coreRefs.config, crypto: coreRefs.crypto, clock: coreRefs.clock, db: coreRefs.db, audit: coreRefs.audit },
  init({ config, crypto, clock, db, audit }, ctx) {
    const key = loadRearmKey(config.roost.rearmKey, config.dataDir, crypto.envelope);
    if (!key) ctx.logger.info('no re-arm key configured: re-arm tickets answer 503 ROOST_REARM_DISABLED');
    ctx.routes(...rearmRoutes({ key, clock, audit, db }), specSheetRoute(key, config.baseUrl, clock));
  },
  // `aerie box …` is the demo signing box (appliance/simulator): roost's appliance, so roost mounts it.
  commands(program, env) {
    registerRoostCommands(program, env);
    registerBoxCommands(program);
  },
});
