import type { BlobError } from '@kindgi/bindings';
import { ApiError } from './api-error.js';

/** A storage failure as a REST error; storage faults are 503 (retryable), never a bare 500. */
export function apiErrorFromBlob(error: BlobError): ApiError {
  switch (error.code) {
    case 'blob-not-found':
      return new ApiError(
        'blob-not-found',
        'No artifact has this id.',
        error.blobId ? { blobId: error.blobId } : undefined,
      );
    case 'blob-hash-mismatch':
      return new ApiError('blob-hash-mismatch', error.message, {
        algorithm: error.algorithm,
        expected: error.expected,
        actual: error.actual,
      });
    case 'blob-size-mismatch':
      return new ApiError('blob-size-mismatch', error.message, { declared: error.declared, actual: error.actual });
    case 'blob-body-failed':
      return new ApiError('bad-input', `The upload body could not be read: ${error.message}`);
    case 'blob-storage-error':
      return new ApiError('storage-unavailable', 'The artifact store failed; retry later.');
    case 'storage-busy':
      return new ApiError(
        'storage-unavailable',
        `The artifact store is busy: ${error.message}.`,
        { reason: 'busy' },
        { 'retry-after': String(error.retryAfterSeconds) },
      );
    default:
      return new ApiError('bad-input', error.message, { storageCode: error.code });
  }
}
