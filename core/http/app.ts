import Koa from 'koa';
import type { Logger } from 'pino';
import type Router from '@koa/router';
import { AerieError, aerieError, notFound } from '../errors.ts';
import { requestIdFrom } from './router.ts';
import { jsonBody } from './json-body.ts';

/** JSON request bodies above this many bytes are refused with 413 `PAYLOAD_TOO_LARGE`. */
export const BODY_LIMIT_BYTES = 1024 * 1024;

/**
 * The error body of a route family whose protocol fixes its own (SCIM's RFC 7644 §3.12 error): every
 * error answered under `pathPrefix` — the kernel's own (401, 404, 405, 413, 415, 400 for a body that
 * does not parse, 500) as well as a route's — is rendered by `render` instead of the envelope.
 * Contributed on `coreExtensions.errorFormats`.
 */
export interface ErrorFormat {
  pathPrefix: string;
  render(error: { status: number; code: string; message: string; requestId: string }): { body: unknown; headers?: Record<string, string> };
}

/**
 * Creates the koa application: request id header (`X-Request-Id`), one log line per request, the
 * error envelope `{ error, message, ...fields }` (also for 404, 405 and 501), `Cache-Control:
 * no-store` unless the route set its own, the JSON body parser (1 MiB, UTF-8 only), the router.
 * With `trustProxy` (config `http.trustProxy`) the client address and scheme are read from `X-Forwarded-*`.
 */
export function createHttpApp(router: Router, logger: Logger, errorFormats: readonly ErrorFormat[] = [], trustProxy = false): Koa {
  const app = new Koa({ proxy: trustProxy });
  app.use(async (ctx, next) => {
    const started = process.hrtime.bigint();
    ctx.state.requestId = requestIdFrom(ctx.get('x-request-id') || undefined);
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
      // A route handed the request to a mounted handler (`delegate`), which answered it itself.
      if (ctx.respond === false) return logRequest(ctx, logger, started);
      if (ctx.status === 404 && ctx.body === undefined) throw notFound(`No route for ${ctx.method} ${ctx.path}.`);
      // allowedMethods() sets a bare 405 (and `Allow`); answer it in the envelope like every other error.
      if (ctx.status === 405 && ctx.body === undefined) throw aerieError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}.`);
      // Methods no route serves anywhere (TRACE, CONNECT, …).
      if (ctx.status === 501 && ctx.body === undefined) throw aerieError('NOT_IMPLEMENTED', `${ctx.method} is not supported.`);
    } catch (err) {
      renderError(ctx, err, logger);
      const format = errorFormats.find((f) => ctx.path.startsWith(f.pathPrefix));
      if (format && !(err instanceof AerieError && err.protocolBody !== undefined)) applyFormat(ctx, format);
    }
    // Answers carry tokens, keys, codes and personal data: no cache keeps them unless a route says so
    // (the JWKS and discovery documents set their own max-age).
    if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
    logRequest(ctx, logger, started);
  });
  app.use(jsonBody(BODY_LIMIT_BYTES));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}

function logRequest(ctx: Koa.Context, logger: Logger, started: bigint): void {
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  logger.info({ reqId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(ms * 10) / 10 }, 'request');
}

function renderError(ctx: Koa.Context, err: unknown, logger: Logger): void {
  const requestId = ctx.state.requestId as string;
  if (err instanceof AerieError && err.expose) {
    ctx.status = err.status;
    for (const [name, value] of Object.entries(err.headers)) ctx.set(name, value);
    ctx.body = err.protocolBody ?? { error: err.code, message: err.message, ...err.fields };
    return;
  }
  const status = (err as { status?: number }).status;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    ctx.status = status;
    ctx.body = { error: status === 405 ? 'METHOD_NOT_ALLOWED' : 'BAD_REQUEST', message: (err as Error).message };
    return;
  }
  logger.error({ err, reqId: requestId }, 'unhandled error');
  ctx.status = 500;
  ctx.body = { error: 'INTERNAL_ERROR', message: 'Something went wrong on our side.', requestId };
}

/** Re-renders the envelope `renderError` wrote in a route family's own error format. */
function applyFormat(ctx: Koa.Context, format: ErrorFormat): void {
  const envelope = ctx.body as { error?: string; message?: string };
  const { body, headers } = format.render({ status: ctx.status, code: envelope.error ?? 'INTERNAL_ERROR', message: envelope.message ?? '', requestId: String(ctx.state.requestId) });
  for (const [name, value] of Object.entries(headers ?? {})) ctx.set(name, value);
  ctx.body = body;
}
