import { aerieError, defineErrorCodes, permissionDenied, upgradeRequired, validationFailed } from '../../core/index.ts';

/** The audit plugin's own error codes (documented in docs/audit.md). */
export const auditErrorCodes = defineErrorCodes('audit', {
  QUERY_SPAN_TOO_LONG: { status: 400, description: 'an audit query covers more than 90 days (`maxDays`)' },
});

type AuditErrorCodes = typeof auditErrorCodes;
declare module '../../core/index.ts' {
  interface ErrorCodeRegistry extends AuditErrorCodes {}
}

/** Errors of the audit plugin. */
export const auditErrors = {
  /** 403 `PERMISSION_DENIED` with `errorCode` and `required`. */
  permissionDenied: (required: string) => permissionDenied(required),
  /** 403 `UPGRADE_REQUIRED` with `feature` (plan below Pro for `scope=all`). */
  upgradeRequired: (feature: string) => upgradeRequired(feature),
  /** 400 `QUERY_SPAN_TOO_LONG`: a query covers at most 90 days. */
  spanTooLong: (days: number) => aerieError('QUERY_SPAN_TOO_LONG', `A query covers at most 90 days; this one covers ${days}.`, { maxDays: 90 }),
  /** 400 `VALIDATION_FAILED` on a bad parameter. */
  invalid: (field: string, rule: string) => validationFailed(`${field} ${rule}`, field),
};
