import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent, errors, request, type Dispatcher } from 'undici';
import { EgressError, type Egress, type EgressFetch, type EgressPostOptions, type EgressResponse, type FetchOptions } from './egress.types.ts';
import { toFetch } from './egress-fetch.ts';
import { guardedConnector, resolveChecked, systemResolver, type Resolver } from './guarded-connector.ts';

/** Options of {@link EgressClient}: the test switch for loopback, extra trusted CAs, the resolver. */
export interface EgressOptions {
  /** Lets loopback addresses through (local receivers in tests). Off by default; the kernel logs a warning when on. */
  allowLoopback?: boolean;
  /** PEM files of extra certificate authorities to trust (a corporate CA, a test receiver). */
  caFiles?: string[];
  resolve?: Resolver;
}

const DEFAULT_RESPONSE_CAP = 64 * 1024;

/** @see Egress */
export class EgressClient implements Egress {
  private readonly agent: Agent;
  private readonly resolve: Resolver;
  private readonly allowLoopback: boolean;

  constructor(options: EgressOptions = {}) {
    this.resolve = options.resolve ?? systemResolver;
    this.allowLoopback = options.allowLoopback ?? false;
    const ca = options.caFiles?.length ? options.caFiles.map((f) => readFileSync(f, 'utf8')) : undefined;
    this.agent = new Agent({
      // Extra CAs are added to Node's bundled roots, not instead of them.
      connect: guardedConnector({ resolve: this.resolve, allowLoopback: this.allowLoopback, ca: ca && [...rootCertificates, ...ca] }),
      keepAliveTimeout: 4_000,
    });
  }

  async checkUrl(url: string): Promise<string> {
    const parsed = parseTarget(url);
    await resolveChecked(parsed.hostname, this.resolve, this.allowLoopback);
    return parsed.href;
  }

  post(url: string, options: EgressPostOptions): Promise<EgressResponse> {
    return this.send(url, 'POST', options);
  }

  get(url: string, options: Omit<EgressPostOptions, 'body'>): Promise<EgressResponse> {
    return this.send(url, 'GET', options);
  }

  fetch(options: FetchOptions): EgressFetch {
    return toFetch(this, options);
  }

  async close(): Promise<void> {
    await this.agent.close();
  }

  private async send(url: string, method: 'GET' | 'POST', options: Partial<EgressPostOptions> & { timeoutMs: number; headers: Record<string, string> }): Promise<EgressResponse> {
    const target = parseTarget(url);
    const started = performance.now();
    // One timer per request, cleared when the answer is in (`AbortSignal.timeout` would leave a
    // timer per request to fire later, and a pending signal for the collector): at the time-out it
    // aborts the request (connect, headers, body); a request undici has queued but not yet
    // dispatched does not see the signal, so the caller's wait ends 500 ms later whatever the pool does.
    const controller = new AbortController();
    const signal = controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new EgressError('timeout', 'no answer within the time-out'));
        timer = setTimeout(() => reject(new EgressError('timeout', 'no answer within the time-out')), 500);
      }, options.timeoutMs);
    });
    const attempt = (async () => {
      const res = await request(target, {
        method, dispatcher: this.agent, signal, headers: options.headers, body: options.body,
        headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs,
      });
      // An answer without a body (204, 304, `content-length: 0`) is drained without an iterator.
      const empty = res.statusCode === 204 || res.statusCode === 304 || res.headers['content-length'] === '0';
      const body = empty ? (await res.body.dump(), Buffer.alloc(0)) : await readCapped(res.body, options.maxResponseBytes ?? DEFAULT_RESPONSE_CAP);
      return { status: res.statusCode, headers: plainHeaders(res.headers), body, latencyMs: performance.now() - started };
    })();
    try {
      return await Promise.race([attempt, deadline]);
    } catch (error) {
      attempt.catch(() => undefined);
      throw classify(error, signal);
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * Parses and normalises a URL the way the check and the connection both see it (WHATWG: decimal,
 * octal and hex IPv4 spellings, trailing dots, case). Refuses anything but `https`, credentials in
 * the URL and fragments. @throws EgressError (`invalid_url`)
 */
export function parseTarget(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new EgressError('invalid_url', 'not an absolute URL');
  }
  if (parsed.protocol !== 'https:') throw new EgressError('invalid_url', 'only https URLs are accepted');
  if (parsed.username || parsed.password) throw new EgressError('invalid_url', 'credentials in the URL are not accepted');
  if (parsed.hash) throw new EgressError('invalid_url', 'a fragment is not accepted');
  if (parsed.hostname.endsWith('.')) parsed.hostname = parsed.hostname.replace(/\.+$/, '');
  return parsed;
}

function plainHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name.toLowerCase()] = value;
  return out;
}

async function readCapped(body: Dispatcher.ResponseData['body'], cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buf = chunk as Buffer;
    chunks.push(buf.subarray(0, Math.max(0, cap - size)));
    size += buf.length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks);
}

function classify(error: unknown, signal: AbortSignal): EgressError {
  if (error instanceof EgressError) return error;
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof EgressError) return cause;
  if (signal.aborted || error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError) {
    return new EgressError('timeout', 'no answer within the time-out');
  }
  const code = String((error as { code?: unknown }).code ?? (cause as { code?: unknown } | undefined)?.code ?? '');
  if (/CERT|SSL|TLS|SELF_SIGNED|ERR_TLS/.test(code)) return new EgressError('tls', `certificate refused (${code})`);
  return new EgressError('connection', code ? `connection failed (${code})` : 'connection failed');
}
