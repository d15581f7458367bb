import type { SecretError } from '@kindgi/bindings';
import { ApiError } from './api-error.js';

/** A secret store failure as a REST error: bad names and values are 400, an outage 503, a key problem 500. */
export function apiErrorFromSecret(error: SecretError): ApiError {
  switch (error.code) {
    case 'secret-name-invalid':
    case 'secret-env-invalid':
    case 'secret-value-invalid':
      return new ApiError(error.code, error.message, error.details);
    case 'storage-unavailable':
      return new ApiError('storage-unavailable', 'The secret store failed; retry later.', undefined, {
        'retry-after': '1',
      });
    default:
      // An unknown key or an unreadable row is the deployment's fault: said without the row's bytes.
      return new ApiError('internal-server-error', error.message, { secretCode: error.code });
  }
}
