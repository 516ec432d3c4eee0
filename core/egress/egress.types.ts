/**
 * Why an outbound request did not produce an answer: the address was refused (`blocked`), the name
 * did not resolve (`dns`), the connection failed (`connection`), the certificate was refused (`tls`),
 * the time-out passed (`timeout`) or the URL is not one Aerie sends to (`invalid_url`).
 */
export type EgressFailureClass = 'blocked' | 'dns' | 'connection' | 'tls' | 'timeout' | 'invalid_url';

/** A refused or failed outbound request. `detail` is safe to show the organization (no secrets). */
export class EgressError extends Error {
  /**
   * @param detail - safe to answer a client: never what a name resolved to or which kind of address it is.
   * @param addressKind - for `blocked`: why the address is refused (`loopback`, `private`, …), for logs and tests only.
   */
  constructor(readonly failureClass: EgressFailureClass, readonly detail: string, readonly addressKind?: string) {
    super(`${failureClass}: ${detail}`);
    this.name = 'EgressError';
  }
}

/** Options of {@link Egress.post}. */
export interface EgressPostOptions {
  headers: Record<string, string>;
  body: string | Uint8Array;
  /** Whole-request time-out in milliseconds (connect, headers and body). */
  timeoutMs: number;
  /** Response bytes read at most; the rest is discarded unread. Default 64 KiB. */
  maxResponseBytes?: number;
}

/** What came back: the status (redirects are not followed), its headers, the capped body and the time taken. */
export interface EgressResponse {
  status: number;
  /** Response headers, names lower-case (a repeated header, such as `set-cookie`, as an array). */
  headers: Record<string, string | string[]>;
  /** The first `maxResponseBytes` of the body. */
  body: Buffer;
  /** Milliseconds from sending to the end of the (capped) body. */
  latencyMs: number;
}

/**
 * `core.egress`: the one HTTP client for user-supplied URLs (webhooks, discovery and metadata
 * documents). Every connection resolves the host once, checks every address (private, loopback,
 * link-local, CGNAT, unique-local, multicast, reserved and metadata addresses are refused, IPv6 forms
 * embedding IPv4 judged by that IPv4) and connects to the checked address. Redirects are not followed;
 * response bodies are capped. @see docs/plugins.md "Outbound requests (core.egress)"
 */
export interface Egress {
  /**
   * Checks a URL at registration: `https` only, no credentials in it, every address of its host
   * allowed. Answers the normalised URL. @throws EgressError (`invalid_url`, `blocked`, `dns`)
   */
  checkUrl(url: string): Promise<string>;
  /** POSTs to `url` through the guarded connector. @throws EgressError for anything but an HTTP answer. */
  post(url: string, options: EgressPostOptions): Promise<EgressResponse>;
  /** GETs `url` (discovery and metadata documents) the same way. @throws EgressError */
  get(url: string, options: Omit<EgressPostOptions, 'body'>): Promise<EgressResponse>;
  /**
   * A WHATWG `fetch` over this client, for libraries that take one (openid-client's `customFetch`):
   * GET and POST only, every request guarded, capped and timed out as `get`/`post` with `options`;
   * the answer is a `Response` (status, headers, the capped body). Refused and failed requests
   * reject with the `EgressError`. @see toFetch
   */
  fetch(options: FetchOptions): EgressFetch;
  close(): Promise<void>;
}

/** Limits of {@link Egress.fetch}: per-request time-out (ms) and response cap (bytes). */
export interface FetchOptions {
  timeoutMs: number;
  maxResponseBytes?: number;
}

/** The `fetch` subset {@link Egress.fetch} answers: a URL string and `{method, headers, body}`. */
export type EgressFetch = (url: string, init?: { method?: string; headers?: unknown; body?: unknown }) => Promise<Response>;
