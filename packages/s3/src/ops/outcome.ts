import type { S3Failure } from '../errors.js';

/** What an operation handler produces: a response, or an S3 error (with extra headers, e.g. Content-Range). */
export type S3Outcome = Response | (S3Failure & { headers?: Record<string, string> });
