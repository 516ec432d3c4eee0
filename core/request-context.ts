import { AsyncLocalStorage } from 'node:async_hooks';
import type { OrgContext, Principal } from './http/route.ts';

/** What the kernel knows about the request being served; read by audit and logging. */
export interface RequestScope {
  requestId: string;
  principal: Principal | null;
  org: OrgContext | null;
  /** Set when the request passed a passkey seal (docs/audit.md, human seal marker). */
  humanSeal?: { credentialId: string; userId: string };
}

const storage = new AsyncLocalStorage<RequestScope>();

/** Runs `fn` inside a request scope. */
export function runInRequestScope<T>(scope: RequestScope, fn: () => Promise<T>): Promise<T> {
  return storage.run(scope, fn);
}

/** The current request scope, or `undefined` outside a request (background work). */
export function currentRequest(): RequestScope | undefined {
  return storage.getStore();
}
