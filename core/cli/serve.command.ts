import type { Command } from 'commander';
import { Kernel } from '../kernel.ts';

/** `aerie serve`: boots and serves HTTP until SIGTERM/SIGINT, then shuts down gracefully. */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('serve Aerie over HTTP (PORT, default 3000)')
    .action(async () => {
      const kernel = await Kernel.boot({ banner: true });
      const { port } = await kernel.listen();
      kernel.logger.info({ port, baseUrl: kernel.config.baseUrl, plugins: kernel.plugins.map((p) => p.manifest.id) }, 'aerie listening');
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        kernel.logger.info({ signal }, 'shutting down');
        try {
          await kernel.close();
        } catch (err) {
          kernel.logger.error({ err }, 'shutdown failed');
          process.exit(1);
        }
        kernel.logger.info('shut down');
        process.exit(0);
      };
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    });
}
