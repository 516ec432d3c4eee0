import { AerieError, badRequest, permissionDenied } from '../../core/index.ts';

/** Error codes of the audit plugin. @see spec 01 "Audit", "Errors", "Limits" */
export const auditErrors = {
  /** 403 `PERMISSION_DENIED` with `errorCode` and `required`. */
  permissionDenied: (required: string) => permissionDenied(required),
  /** 403 `UPGRADE_REQUIRED` with `feature` (plan below Pro for `scope=all`). */
  upgradeRequired: (feature: string) => new AerieError(403, 'UPGRADE_REQUIRED', 'Your plan does not include this feature.', { feature }),
  /** 400 `QUERY_SPAN_TOO_LONG`: a query covers at most 90 days. */
  spanTooLong: (days: number) => badRequest(`A query covers at most 90 days; this one covers ${days}.`, 'QUERY_SPAN_TOO_LONG', { maxDays: 90 }),
  /** 400 `VALIDATION_FAILED` on a bad parameter. */
  invalid: (field: string, rule: string) => badRequest(`${field} ${rule}`, 'VALIDATION_FAILED', { field }),
};
