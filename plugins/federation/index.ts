import { createServiceRef, definePlugin } from '../../core/index.ts';
import { ConnectionsService } from './connections.service.ts';
import { connectionRoutes } from './routes/connections.route.ts';
import './errors.ts';

const connectionsRef = createServiceRef<ConnectionsService>('federation.connections');

export default definePlugin({
  id: 'federation',
  deps: { connections: connectionsRef },
  register(reg) {
    reg.service(connectionsRef, ConnectionsService);
  },
  init({ connections }, ctx) {
    ctx.routes(...connectionRoutes(connections));
  },
});
