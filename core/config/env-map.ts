/**
 * A configuration key that can be set from the environment, with its variable name. The kernel's
 * are {@link ENV_BINDINGS}; a plugin names its own with `"env"` in its `config` schema.
 */
export interface EnvBinding {
  /** Dotted key path in `aerie.config.json`. */
  key: string;
  /** Environment variable name. */
  env: string;
  /** How the string is read. */
  kind: 'string' | 'integer' | 'list' | 'boolean';
}

/** The kernel's keys settable from the environment (README's configuration table lists these and the plugins'). */
export const ENV_BINDINGS: readonly EnvBinding[] = [
  { key: 'port', env: 'PORT', kind: 'integer' },
  { key: 'port', env: 'AERIE_PORT', kind: 'integer' },
  { key: 'host', env: 'AERIE_HOST', kind: 'string' },
  { key: 'baseUrl', env: 'AERIE_BASE_URL', kind: 'string' },
  { key: 'loginUrl', env: 'AERIE_LOGIN_URL', kind: 'string' },
  { key: 'dashboardUrl', env: 'AERIE_DASHBOARD_URL', kind: 'string' },
  { key: 'shareUrl', env: 'AERIE_SHARE_URL', kind: 'string' },
  { key: 'marketplaceUrl', env: 'AERIE_MARKETPLACE_URL', kind: 'string' },
  { key: 'dataDir', env: 'AERIE_DATA_DIR', kind: 'string' },
  { key: 'databaseUrl', env: 'DATABASE_URL', kind: 'string' },
  { key: 'masterKey', env: 'AERIE_MASTER_KEY', kind: 'string' },
  { key: 'platformAdmins', env: 'AERIE_PLATFORM_ADMINS', kind: 'list' },
  { key: 'plugins.enabled', env: 'AERIE_PLUGINS', kind: 'list' },
  { key: 'plugins.paths', env: 'AERIE_PLUGIN_PATHS', kind: 'list' },
  { key: 'webauthn.rpId', env: 'AERIE_WEBAUTHN_RP_ID', kind: 'string' },
  { key: 'webauthn.rpName', env: 'AERIE_WEBAUTHN_RP_NAME', kind: 'string' },
  { key: 'webauthn.origins', env: 'AERIE_WEBAUTHN_ORIGINS', kind: 'list' },
  { key: 'mail.from', env: 'AERIE_MAIL_FROM', kind: 'string' },
  { key: 'mail.smtpUrl', env: 'AERIE_SMTP_URL', kind: 'string' },
  { key: 'log.level', env: 'AERIE_LOG_LEVEL', kind: 'string' },
  { key: 'log.format', env: 'AERIE_LOG_FORMAT', kind: 'string' },
  { key: 'audit.ingestThreads', env: 'AERIE_AUDIT_INGEST_THREADS', kind: 'integer' },
  { key: 'http.headersTimeoutSeconds', env: 'AERIE_HTTP_HEADERS_TIMEOUT', kind: 'integer' },
  { key: 'http.requestTimeoutSeconds', env: 'AERIE_HTTP_REQUEST_TIMEOUT', kind: 'integer' },
  { key: 'http.maxConnectionsPerAddress', env: 'AERIE_HTTP_MAX_CONNECTIONS_PER_ADDRESS', kind: 'integer' },
  { key: 'http.trustProxy', env: 'AERIE_TRUST_PROXY', kind: 'boolean' },
  { key: 'jobs.maintenanceIntervalSeconds', env: 'AERIE_JOBS_MAINTENANCE_INTERVAL', kind: 'integer' },
  { key: 'jobs.scheduler', env: 'AERIE_JOBS_SCHEDULER', kind: 'boolean' },
  { key: 'workers.maxThreads', env: 'AERIE_WORKERS_MAX_THREADS', kind: 'integer' },
  { key: 'blob.driver', env: 'AERIE_BLOB_DRIVER', kind: 'string' },
  { key: 'blob.s3.bucket', env: 'AERIE_S3_BUCKET', kind: 'string' },
  { key: 'blob.s3.endpoint', env: 'AERIE_S3_ENDPOINT', kind: 'string' },
  { key: 'blob.s3.region', env: 'AERIE_S3_REGION', kind: 'string' },
  { key: 'blob.s3.forcePathStyle', env: 'AERIE_S3_FORCE_PATH_STYLE', kind: 'boolean' },
  { key: 'egress.allowLoopback', env: 'AERIE_EGRESS_ALLOW_LOOPBACK', kind: 'boolean' },
  { key: 'egress.caFiles', env: 'AERIE_EGRESS_CA_FILES', kind: 'list' },
];
