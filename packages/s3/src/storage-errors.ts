import type { ApiLogger, BlobError } from '@kindgi/bindings';
import { findBodyFailure, type S3Failure, s3Error } from './errors.js';

/**
 * Maps a storage error to the S3 error a client expects. A body that failed our own verification carries
 * its S3 error as the cause; a body that failed otherwise means the client went away mid-upload.
 */
export function s3FailureOf(error: BlobError, logger: ApiLogger, requestId: string): S3Failure {
  switch (error.code) {
    case 'blob-body-failed':
      return findBodyFailure(error.cause) ?? s3Error('IncompleteBody', 'The request body ended early or failed.');
    case 'blob-hash-mismatch':
      return error.algorithm === 'md5' ? s3Error('BadDigest') : s3Error('XAmzContentSHA256Mismatch');
    case 'blob-size-mismatch':
      return s3Error('IncompleteBody', `Declared ${error.declared} bytes, received ${error.actual}.`);
    case 'blob-not-found':
      return s3Error('NoSuchKey');
    case 'upload-not-found':
      return s3Error('NoSuchUpload');
    case 'precondition-failed':
      return s3Error('PreconditionFailed');
    case 'invalid-part':
      return s3Error('InvalidPart', `Part ${error.partNumber} could not be found or its ETag does not match.`);
    case 'invalid-part-order':
      return s3Error('InvalidPartOrder');
    case 'entity-too-small':
      return s3Error('EntityTooSmall', `Part ${error.partNumber} is smaller than 5 MiB and is not the last part.`);
    case 'invalid-key':
      return s3Error('InvalidArgument', error.message);
    case 'storage-busy':
      return s3Error('SlowDown', `Please reduce your request rate: ${error.message}.`);
    case 'blob-storage-error':
      logger.error('s3: blob storage failed', { requestId, message: error.message });
      return s3Error('InternalError');
  }
}
