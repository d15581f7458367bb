export { cachedSecretStore, SECRET_CACHE_MS } from './cache.js';
export {
  openSecret,
  parseSecretKey,
  rewrapSecret,
  type SealedSecret,
  type SecretAddress,
  type SecretKey,
  type SecretKeyring,
  sealSecret,
  secretKeyId,
} from './cipher.js';
export {
  SECRET_AUDIT_COLUMN_LIST,
  SECRET_COLUMN_LIST,
  type SecretAuditColumns,
  type SecretColumns,
  secretAuditOf,
  secretRowOf,
  secretStorageFailure,
} from './columns.js';
export { type SecretError, type SecretErrorCode, secretError } from './errors.js';
export {
  checkSecretEnv,
  checkSecretName,
  checkSecretValue,
  DEFAULT_SECRET_ENV,
  MAX_SECRET_VALUE_BYTES,
  SECRET_ENV_PATTERN,
  SECRET_NAME_PATTERN,
} from './names.js';
export { createSecretRedactor, MIN_REDACTED_LENGTH, REDACTED, type SecretRedactor } from './redactor.js';
export type { SecretAuditRow, SecretRow, SecretRowsPort, SecretRowsResult, SecretWrite } from './rows.js';
export {
  createSecretStore,
  type SecretAuditEntry,
  type SecretMetadata,
  type SecretPage,
  type SecretStore,
  type SecretStoreOptions,
} from './store.js';
