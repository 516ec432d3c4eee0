import { coreRefs, createServiceRef, definePlugin } from '../../core/index.ts';
import { Dispatcher, DEFAULT_DISPATCHER_OPTIONS } from './dispatcher.ts';
import { EndpointsService } from './endpoints.service.ts';
import { endpointRoutes } from './routes/endpoints.route.ts';
import './errors.ts';

const endpointsRef = createServiceRef<EndpointsService>('webhooks.endpoints');

export default definePlugin({
  id: 'webhooks',
  deps: {
    endpoints: endpointsRef, db: coreRefs.db, auditLog: coreRefs.auditLog, audit: coreRefs.audit, egress: coreRefs.egress,
    clock: coreRefs.clock, events: coreRefs.events,
  },
  register(reg) {
    reg.service(endpointsRef, EndpointsService);
  },
  init({ endpoints, db, auditLog, audit, egress, clock, events }, ctx) {
    ctx.routes(...endpointRoutes(endpoints, db));
    const { webhooks } = ctx.pluginConfig<{ webhooks: { timeoutSeconds: number; interruptedAfterSeconds: number } }>();
    const dispatcher = new Dispatcher(db, auditLog, audit, endpoints, egress, clock, ctx.logger, {
      ...DEFAULT_DISPATCHER_OPTIONS, timeoutMs: webhooks.timeoutSeconds * 1000, interruptedAfterMs: webhooks.interruptedAfterSeconds * 1000,
    });
    dispatcher.start(events);
    ctx.onShutdown(() => dispatcher.stop());
  },
});
