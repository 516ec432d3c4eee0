/**
 * What every active member holds without any role: their own entries of the audit log.
 * Owner and Admin hold everything implicitly.
 * @see docs/api/roles.md; docs/api/orgs.md "Membership resolution"
 */
export const DEFAULT_MEMBER_GRANTS: readonly string[] = Object.freeze(['org.audit_event_log.list:actor=self']);
