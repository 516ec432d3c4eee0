/**
 * Service refs private to the rbac plugin (other plugins use `api.ts`). Kept apart from `index.ts`
 * so services can name them in `@inject` without an import cycle.
 */
import { createServiceRef } from '../../core/index.ts';
import type { ScopeCatalog } from './scope-catalog.ts';

export const rbacInternalRefs = {
  /** The scopes enabled plugins declare (their manifests' `permissions`), built once at register. */
  scopeCatalog: createServiceRef<ScopeCatalog>('rbac.scopeCatalog'),
};
