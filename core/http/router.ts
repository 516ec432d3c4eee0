import Router from '@koa/router';
import type { Context } from 'koa';
import { randomUUID } from 'node:crypto';
import { readRawBody } from './raw-body.ts';
import { readUpload } from './multipart.ts';
import type { AuthRequest, AuthScheme } from './auth-scheme.ts';
import type { OrgResolver } from './authorizer.ts';
import { responseSchema, responsesOf, type HandlerInput, type OrgContext, type Principal, type RouteDef, type SchemaRef } from './route.ts';
import { Delegation, Reply } from './reply.ts';
import type { SchemaRegistry } from './schema-registry.ts';
import { notFound, permissionDenied, stepUpRequired, unauthorized, unsupportedMediaType } from '../errors.ts';
import { runInRequestScope } from '../request-context.ts';
import { KernelAuthz, type AuthzService } from '../authz/authz-service.ts';
import { BootError } from '../plugins/boot-error.ts';
import { assertCleanInput } from './input-hygiene.ts';
import type { SealService, SealVerification } from '../seals/seal-service.types.ts';
import { orderRoutes, type OwnedRoute } from './route-table.ts';

/** What the router needs from the kernel. */
export interface RouterDeps {
  routes: OwnedRoute[];
  schemas: SchemaRegistry;
  authSchemes: Map<string, AuthScheme>;
  orgResolver?: OrgResolver;
  /** `core.authz`: what a principal holds in the route's organization (default: a credential's own scopes only). */
  authz?: AuthzService;
  /** `core.seals`, when a seal provider is available (routes with `seal` need it). */
  seals?: SealService;
  /**
   * Check every 2xx JSON answer against the route's `response` schema and answer 500 when it does
   * not match. For tests only (the kernel turns it on when `NODE_ENV` is `test`): it proves the
   * published schemas against real answers and costs a validation per request.
   */
  validateResponses?: boolean;
}

/**
 * Converts the spec's `{param}` placeholders to koa-router's `:param`. A literal `:` in the path is
 * escaped first, so `/integrations/app:{groupKey}/enable` matches `app:` then the parameter.
 */
export function toKoaPath(path: string): string {
  return path.replace(/:/g, '\\:').replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

/**
 * Builds the koa router from route definitions, compiling every validator once.
 * Per request, in order: authenticate (401), platform-admin check (403), an organization session
 * outside `org: true` and `orgSessions` routes (403), path parameters free of NUL
 * and lone surrogates (400), organization resolution (404, also another organization than an
 * organization session's), scope check (403 `PERMISSION_DENIED`
 * with `required`), params/query/body validation and the same text and finite-number checks (400),
 * the route's `guard`, the passkey seal (401 `STEPUP_REQUIRED`/`STEPUP_FAILED`), then the handler
 * inside a request scope.
 * Matching does not depend on registration order: a literal segment beats a `{param}` at the same
 * position (see {@link orderRoutes}).
 * @throws BootError for an unknown auth scheme or schema `$id`, naming the plugin, or for a
 *   duplicate method + path, naming both plugins.
 */
export function buildRouter(deps: RouterDeps): Router {
  const router = new Router();
  const authz = deps.authz ?? new KernelAuthz(() => undefined);
  for (const { pluginId, def } of orderRoutes(deps.routes)) {
    const schemes = def.auth === 'public' ? [] : (Array.isArray(def.auth) ? def.auth : [def.auth]);
    for (const name of schemes) {
      if (!deps.authSchemes.has(name)) throw new BootError(`plugin ${pluginId}: route ${def.method} ${def.path} uses unknown auth scheme "${name}"`);
    }
    if (def.seal && !deps.seals) throw new BootError(`plugin ${pluginId}: route ${def.method} ${def.path} needs passkey seals (core.seals is not available)`);
    if (def.org && !deps.orgResolver) throw new BootError(`plugin ${pluginId}: route ${def.path} needs organizations (enable the orgs plugin)`);
    const check = (ref: SchemaRef | undefined, kind: 'body' | 'query' | 'params') => {
      if (!ref) return undefined;
      try {
        return deps.schemas.validator(deps.schemas.use(ref), kind);
      } catch (err) {
        throw new BootError(`plugin ${pluginId}: route ${def.method} ${def.path}: ${(err as Error).message}`);
      }
    };
    if ([def.body, def.rawBody, def.upload].filter(Boolean).length > 1) {
      throw new BootError(`plugin ${pluginId}: route ${def.method} ${def.path} declares more than one of body, rawBody and upload`);
    }
    if (def.keepRawBody && !def.body) throw new BootError(`plugin ${pluginId}: route ${def.method} ${def.path} declares keepRawBody without a JSON body`);
    const validateBody = check(def.body, 'body');
    const validateQuery = check(def.query, 'query');
    const validateParams = check(def.params, 'params');
    const checkAnswer = deps.validateResponses ? answerChecker(def, deps.schemas, pluginId) : undefined;
    const method = def.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';

    router[method](toKoaPath(def.path), async (ctx: Context) => {
      const req = authRequest(ctx);
      const principal = await authenticate(schemes, deps.authSchemes, req);
      if (def.platformAdmin && !principal?.platformAdmin) throw permissionDenied(undefined, 'Only platform administrators may do this.');
      if (principal?.sessionOrgId && !def.org && !def.orgSessions) throw organizationSessionOutside();
      if (def.org && principal?.appGroupId && !def.appGroupCredentials) {
        throw unauthorized('This route needs an organization-wide credential; an app-group-scoped key cannot use it.');
      }
      const params = { ...ctx.params } as Record<string, unknown>;
      // Before organization resolution, which reads `{slug}` from the database.
      assertCleanInput(params, 'params');
      let org: OrgContext | null = null;
      if (def.org) {
        org = await deps.orgResolver!(String(params.slug), principal);
        // An organization session never reaches another organization, whatever the resolver answers.
        if (!org || (principal?.sessionOrgId && org.organization.id !== principal.sessionOrgId)) throw notFound('Organization not found.');
      }
      if (def.scope) await checkScope(def.scope, principal, org, authz);
      validateParams?.(params);
      const query = { ...(ctx.query as Record<string, unknown>) };
      validateQuery?.(query);
      // After coercion: `limit=1e309` is Infinity only once coerced.
      assertCleanInput(query, 'query');
      let body: unknown = ctx.request.body;
      if (validateBody) {
        if (body === undefined || (ctx.request.length && !ctx.is('application/json'))) {
          if (ctx.request.length) throw unsupportedMediaType('Send the body as application/json.');
          body = {};
        }
        validateBody(body);
      }
      assertCleanInput(body, 'body');
      const requestId = String(ctx.state.requestId);
      const input: HandlerInput = { body, query, params, principal, org, request: { id: requestId, method: ctx.method, path: ctx.path, ip: ctx.ip, headers: ctx.headers } };
      if (def.rawBody) input.rawBody = await readRawBody(ctx, def.rawBody.maxBytes);
      if (def.rawBody?.form) input.form = formFields(ctx, input.rawBody!);
      if (def.keepRawBody) input.rawBody = (ctx.state.jsonBytes as Buffer | undefined) ?? Buffer.alloc(0);
      const upload = def.upload ? await readUpload(ctx, def.upload) : undefined;
      if (upload) input.upload = upload.file;
      let result: unknown;
      try {
        await def.guard?.(input);
        const seal = def.seal ? await verifySeal(def.seal, input, deps.seals!) : undefined;
        if (seal) input.seal = seal;
        const humanSeal = seal ? { credentialId: seal.credentialId, userId: seal.userId } : undefined;
        result = await runInRequestScope({ requestId, principal, org, humanSeal }, async () => def.handler(input));
      } finally {
        // What the handler left unread (a refused upload's rest) is read and dropped, so the client gets its answer.
        upload?.discard();
      }
      if (result instanceof Delegation) return handOver(ctx, result);
      render(ctx, result, def.status ?? 200);
      checkAnswer?.(ctx.status, ctx.body, ctx.response.get('Content-Type'));
    });
  }
  return router;
}

/**
 * The test-time check of a route's answers: a 2xx JSON body must match the schema `response` declares
 * for its status. A mismatch throws (the app answers 500 and logs it) and is written to stderr, so
 * the test that made the request fails with the reason.
 */
function answerChecker(def: RouteDef, schemas: SchemaRegistry, pluginId: string): (status: number, body: unknown, contentType: string) => void {
  const where = `plugin ${pluginId}: route ${def.method} ${def.path}`;
  const validators = new Map<number, (value: unknown) => string | null>();
  for (const [status, entry] of responsesOf(def)) {
    const ref = responseSchema(entry);
    try {
      if (ref) validators.set(status, schemas.responseValidator(schemas.use(ref)));
    } catch (err) {
      throw new BootError(`${where}: ${(err as Error).message}`);
    }
  }
  return (status, body, contentType) => {
    if (status < 200 || status >= 300 || body === undefined || body === null || Buffer.isBuffer(body)) return;
    const validate = validators.get(status);
    if (!validate) return;
    let value: unknown = body;
    if (typeof body === 'string') {
      if (!/json/i.test(contentType)) return;
      value = JSON.parse(body) as unknown;
    }
    const problem = validate(value);
    if (problem === null) return;
    const message = `${where}: the ${status} answer does not match its response schema: ${problem}`;
    process.stderr.write(`aerie response validation: ${message}\n`);
    throw new Error(message);
  };
}

/** The fields of an `application/x-www-form-urlencoded` body (UTF-8), or none for another `Content-Type`. */
function formFields(ctx: Context, bytes: Buffer): URLSearchParams {
  return ctx.is('application/x-www-form-urlencoded') ? new URLSearchParams(bytes.toString('utf8')) : new URLSearchParams();
}

function authRequest(ctx: Context): AuthRequest {
  return { headers: ctx.headers, cookie: (name) => ctx.cookies.get(name), ip: ctx.ip, method: ctx.method, path: ctx.path, query: ctx.query };
}

async function authenticate(names: string[], schemes: Map<string, AuthScheme>, req: AuthRequest): Promise<Principal | null> {
  if (names.length === 0) return null;
  // A request that presents `Authorization` is judged by it: an invalid bearer is 401 even when the
  // request also carries a valid session cookie.
  const bearerOnly = req.headers.authorization !== undefined;
  for (const name of names) {
    const scheme = schemes.get(name)!;
    if (bearerOnly && scheme.cookie) continue;
    const principal = await scheme.authenticate(req);
    if (principal) return principal;
  }
  throw unauthorized();
}

/** 403 for an organization session on a route outside its organization (see {@link Principal.sessionOrgId}). */
function organizationSessionOutside(): Error {
  return permissionDenied(undefined, 'This session was opened through an organization\'s identity provider: it reaches that organization only. Sign in to Aerie itself for account-wide actions.', { reason: 'organization_session' });
}

async function checkScope(scope: string, principal: Principal | null, org: OrgContext | null, authz: AuthzService): Promise<void> {
  if (!principal) throw permissionDenied(scope);
  if (org) return authz.require(principal, org, scope);
  // Outside an organization only a credential's own scopes count.
  if (!authz.setOf(principal.scopes ?? []).has(scope)) throw permissionDenied(scope);
}

async function verifySeal(seal: NonNullable<RouteDef['seal']>, input: HandlerInput, seals: SealService): Promise<SealVerification | undefined> {
  if (seal.when && !seal.when(input)) return undefined;
  const accountId = input.principal?.accountId;
  if (!accountId) throw stepUpRequired(undefined, 'A passkey seal from a signed-in person is required.');
  const raw = (input.body as Record<string, unknown> | undefined)?.[seal.assertionField];
  if (raw === undefined || raw === null || raw === '') {
    throw stepUpRequired(seal.purpose);
  }
  return seals.verify({ accountId, purpose: seal.purpose, subject: seal.subject(input), assertion: raw, inputs: seal.inputs?.(input) });
}

/**
 * Hands the request to a mounted Node.js handler: `req.url` relative to the mount path,
 * `req.originalUrl` as sent (mounted apps such as oidc-provider build their own URLs from it).
 * @throws Error when the request path is not under the mount path (a route bug)
 */
async function handOver(ctx: Context, delegation: Delegation): Promise<void> {
  const { mountPath } = delegation;
  if (ctx.path !== mountPath && !ctx.path.startsWith(`${mountPath}/`)) throw new Error(`${ctx.path} is not under ${mountPath}`);
  const req = ctx.req as typeof ctx.req & { originalUrl?: string };
  req.originalUrl = ctx.originalUrl;
  req.url = ctx.url.slice(mountPath.length) || '/';
  if (!req.url.startsWith('/')) req.url = `/${req.url}`;
  ctx.respond = false;
  await delegation.handle(req, ctx.res);
}

function render(ctx: Context, result: unknown, status: number): void {
  if (result instanceof Reply) {
    ctx.status = result.status;
    for (const [k, v] of Object.entries(result.headers)) ctx.set(k, v);
    if (result.body !== undefined) ctx.body = result.body;
    return;
  }
  if (result === undefined) {
    ctx.status = 204;
    return;
  }
  ctx.status = status;
  ctx.body = result;
}

/** A fresh request id, or the caller's `X-Request-Id` when it is a sane token. */
export function requestIdFrom(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header[0] : header;
  return value && /^[A-Za-z0-9._-]{8,128}$/.test(value) ? value : randomUUID();
}
