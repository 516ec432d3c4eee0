import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import type { AerieConfig } from './config/config.types.ts';

/**
 * The process logger: pino at `log.level`; one JSON object a line (`log.format: json`, what log
 * collectors read), or readable lines with times and colours (`pretty`). `auto`, the default, is
 * `pretty` when standard output is a terminal and `json` otherwise.
 * @param config - `log.level` and `log.format`.
 * @param isTerminal - whether standard output is a terminal (default `process.stdout.isTTY`).
 */
export function createLogger(config: Pick<AerieConfig, 'log'>, isTerminal = process.stdout.isTTY === true): Logger {
  const options = { level: config.log.level, base: undefined };
  const readable = config.log.format === 'pretty' || (config.log.format === 'auto' && isTerminal);
  if (!readable) return pino(options);
  return pino(options, pretty({ colorize: isTerminal, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname', sync: true }));
}

/**
 * The first line `aerie serve` prints: where Aerie answers and where its data lives.
 * @example bannerLine(config, '0.1.0') // 'Aerie 0.1.0 at http://localhost:3000 (listening on 0.0.0.0:3000); data in /srv/aerie/data, embedded PostgreSQL'
 */
export function bannerLine(config: AerieConfig, version: string): string {
  const database = config.databaseUrl ? `PostgreSQL at ${new URL(config.databaseUrl).host}` : 'embedded PostgreSQL';
  return `Aerie ${version} at ${config.baseUrl} (listening on ${config.host}:${config.port}); data in ${config.dataDir}, ${database}`;
}
