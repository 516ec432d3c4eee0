import { readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';
import { Agent } from 'undici';
import { CappedResponse } from './capped-response.ts';
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
/** Parsed URLs kept (the set is emptied when full). */
const MAX_REMEMBERED_TARGETS = 10_000;

/** Where a request goes, as undici's dispatch takes it. */
interface Target {
  origin: string;
  path: string;
}

/** @see Egress */
export class EgressClient implements Egress {
  private readonly agent: Agent;
  private readonly resolve: Resolver;
  private readonly allowLoopback: boolean;
  private readonly targets = new Map<string, Target>();

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

  private send(url: string, method: 'GET' | 'POST', options: Partial<EgressPostOptions> & { timeoutMs: number; headers: Record<string, string> }): Promise<EgressResponse> {
    let target: Target;
    try {
      target = this.target(url);
    } catch (error) {
      return Promise.reject(error);
    }
    return new Promise((resolve, reject) => {
      const handler = new CappedResponse(options.maxResponseBytes ?? DEFAULT_RESPONSE_CAP, options.timeoutMs, (error, response) => (error ? reject(error) : resolve(response!)));
      this.agent.dispatch({
        origin: target.origin, path: target.path, method, headers: options.headers, body: options.body,
        headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs,
      }, handler);
    });
  }

  /** `url` parsed by {@link parseTarget}, remembered (webhook URLs repeat): its origin and path. @throws EgressError */
  private target(url: string): Target {
    let target = this.targets.get(url);
    if (!target) {
      const parsed = parseTarget(url);
      target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}` };
      if (this.targets.size >= MAX_REMEMBERED_TARGETS) this.targets.clear();
      this.targets.set(url, target);
    }
    return target;
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
