import type { Principal } from '../../core/index.ts';
import { keysErrors } from './errors.ts';

/**
 * Refuses app-group-scoped API keys and machine tokens with 401 (organization-wide endpoints:
 * operators, key endpoints, file box).
 * @param principal the route's principal
 * @throws 401 `UNAUTHORIZED` when the credential is app-group-scoped
 * @example requireOrganizationWideKey(principal);
 * @see docs/api/accounts.md
 */
export function requireOrganizationWideKey(principal: Principal | null): void {
  if (principal && (principal as { appGroupId?: string }).appGroupId) throw keysErrors.organizationWideKeyRequired();
}
