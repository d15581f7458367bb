import { err, ok, type Result, SECRET_NAME_PATTERN } from '@kindgi/protocol';
import { type SecretError, secretError } from './errors.js';

// The name rule is the protocol's, shared with the SDK and the indexer that check tools' declarations.
export { SECRET_NAME_PATTERN };

/** An environment a secret is set for (`production`, `staging`, `local`). */
export const SECRET_ENV_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
/** The largest value, in UTF-8 bytes. */
export const MAX_SECRET_VALUE_BYTES = 16 * 1024;
/** The environment a secret is set for and resolved in when nobody says: the deployment's default. */
export const DEFAULT_SECRET_ENV = 'production';

/** `name`, when it is a secret name. */
export function checkSecretName(name: string): Result<string, SecretError> {
  if (SECRET_NAME_PATTERN.test(name)) return ok(name);
  return err(
    secretError(
      'secret-name-invalid',
      'A secret name is 1 to 128 characters: capital letters, digits and underscores, not starting with a digit',
      { pattern: SECRET_NAME_PATTERN.source },
    ),
  );
}

/** `env`, when it is an environment name. */
export function checkSecretEnv(env: string): Result<string, SecretError> {
  if (SECRET_ENV_PATTERN.test(env)) return ok(env);
  return err(
    secretError(
      'secret-env-invalid',
      'An environment name is 1 to 32 characters: lowercase letters, digits and hyphens, starting with a letter',
      { pattern: SECRET_ENV_PATTERN.source },
    ),
  );
}

/** `value`, when it is a value a secret may hold: not empty, at most `MAX_SECRET_VALUE_BYTES`. */
export function checkSecretValue(value: string, maxBytes = MAX_SECRET_VALUE_BYTES): Result<string, SecretError> {
  const bytes = Buffer.byteLength(value, 'utf8');
  if (bytes > 0 && bytes <= maxBytes) return ok(value);
  return err(
    secretError('secret-value-invalid', `A secret value is 1 to ${maxBytes} bytes of UTF-8 (this one is ${bytes})`, {
      maxBytes,
      bytes,
    }),
  );
}
