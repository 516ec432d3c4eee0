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
 * @example return reply(201, dto, { location: `/api/org/${dto.slug}` });
 */
export function reply(status: number, body?: unknown, headers: Record<string, string> = {}): Reply {
  return new Reply(status, body, headers);
}
