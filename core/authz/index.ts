/**
 * Public API of the kernel's authorization algebra (`core.authz`): scope expressions
 * `namespace.resource.action[:key{op}value,...]`, matching, permission sets, narrowing and
 * separation of duties.
 *
 * @see docs/api/roles.md
 */
export {
  formatScope,
  hasUnfilledValue,
  MAX_SCOPE_LENGTH,
  parseScope,
  ScopeSyntaxError,
  toScope,
  UNFILLED_VALUE,
  type ScopeConstraint,
  type ScopeExpression,
  type ScopeOperator,
} from './scope-expression.ts';
export {
  baseCovers,
  constraintSatisfied,
  scopeGrants,
  scopeReaches,
  SELF_KEY,
  SELF_VALUE,
  type ScopeContext,
} from './scope-match.ts';
export { PERMISSION_CACHE_SIZE, PermissionSet } from './permission-set.ts';
export { KernelAuthz, type AuthzService } from './authz-service.ts';
export { narrowScopes, type NarrowResult } from './narrow.ts';
export { checkAssignment, findSodConflicts, SOD_PAIRS, type SodConflict, type SodPair } from './separation-of-duties.ts';
