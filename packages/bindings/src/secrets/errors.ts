/** Why a secret operation failed: one code per cause, stable on every surface that shows it. */
export type SecretErrorCode =
  | 'secret-name-invalid'
  | 'secret-env-invalid'
  | 'secret-value-invalid'
  | 'secret-key-unknown'
  | 'secret-unreadable'
  | 'storage-unavailable';

/** A failed secret operation. Its message and details never hold a secret's value. */
export interface SecretError {
  code: SecretErrorCode;
  message: string;
  details?: Record<string, unknown>;
}

/** A `SecretError` with the given code and message. */
export function secretError(code: SecretErrorCode, message: string, details?: Record<string, unknown>): SecretError {
  return details === undefined ? { code, message } : { code, message, details };
}
