import { definePlugin } from '../../core/index.ts';
import { ConnectionsService } from './connections.service.ts';
import { LinksService } from './links.service.ts';
import { federationRefs } from './refs.ts';
import { connectionRoutes } from './routes/connections.route.ts';
import { linkRoutes } from './routes/links.route.ts';
import { signinRoutes } from './routes/signin.route.ts';
import { SigninService } from './signin.service.ts';
import './errors.ts';

export default definePlugin({
  id: 'federation',
  deps: { connections: federationRefs.connections, signin: federationRefs.signin, links: federationRefs.links },
  register(reg) {
    reg.service(federationRefs.connections, ConnectionsService);
    reg.service(federationRefs.signin, SigninService);
    reg.service(federationRefs.links, LinksService);
  },
  init({ connections, signin, links }, ctx) {
    ctx.routes(...connectionRoutes(connections), ...signinRoutes(signin), ...linkRoutes(signin, links));
  },
});
