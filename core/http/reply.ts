/** A handler result that sets status and headers as well as the body. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/**
 * Builds a `Reply`. `body` may be a JSON value, a string or a Buffer (set `content-type` then).
 * The reply holds a copy of `headers`: a shared constant passed here (a media type for every
 * answer of a plugin) is never changed by what is later set on one reply.
 * @example return reply(201, dto, { location: `/api/org/${dto.slug}` });
 */
export function reply(status: number, body?: unknown, headers: Readonly<Record<string, string>> = {}): Reply {
  return new Reply(status, body, { ...headers });
}

/** A Node.js request handler a route hands its request to (`provider.callback()` of an oidc-provider, …). */
export type NodeHandler = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => Promise<void> | void;

/**
 * A handler result that hands the request, unread, to a Node.js handler mounted at `mountPath` (a
 * prefix of the request path): the handler sees `req.url` relative to `mountPath` and
 * `req.originalUrl` as sent, and writes the answer itself. Everything the route table does before
 * the handler (authentication, parameter checks, the request id) has happened; the kernel's error
 * envelope and `Cache-Control` default do not apply to what the mounted handler writes.
 */
export class Delegation {
  constructor(
    readonly mountPath: string,
    readonly handle: NodeHandler,
  ) {}
}

/**
 * Builds a {@link Delegation}.
 * @example return delegate(`/api/public/orgs/${slug}`, provider.callback());
 * @throws Error when `mountPath` is empty or ends with `/`
 */
export function delegate(mountPath: string, handle: NodeHandler): Delegation {
  if (!mountPath.startsWith('/') || mountPath.endsWith('/')) throw new Error(`mount path ${mountPath} must start with / and not end with /`);
  return new Delegation(mountPath, handle);
}
