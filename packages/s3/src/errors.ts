/**
 * The S3 error codes this surface answers with, their HTTP status and a default message. The seed's table
 * plus the codes real S3 uses for the extras we support (checksums, multipart rules, preconditions, length).
 */
export const S3_ERRORS = {
  AccessDenied: { status: 403, message: 'Access Denied' },
  AuthorizationHeaderMalformed: { status: 400, message: 'The authorization header is malformed.' },
  AuthorizationQueryParametersError: { status: 400, message: 'Malformed presigned-URL parameters' },
  BadDigest: { status: 400, message: 'The Content-MD5 or checksum you specified did not match what was received.' },
  EntityTooLarge: { status: 400, message: 'Your proposed upload exceeds the maximum allowed object size.' },
  EntityTooSmall: { status: 400, message: 'Your proposed upload is smaller than the minimum allowed object size.' },
  IncompleteBody: { status: 400, message: 'You did not provide the number of bytes specified by the length header.' },
  InternalError: { status: 500, message: 'We encountered an internal error. Please try again.' },
  InvalidAccessKeyId: { status: 403, message: 'The AWS Access Key Id you provided does not exist in our records.' },
  InvalidArgument: { status: 400, message: 'Invalid Argument' },
  InvalidChunkSizeError: { status: 400, message: 'Only the last chunk is allowed to have a size less than 8192 bytes' },
  InvalidDigest: { status: 400, message: 'The Content-MD5 you specified is not valid.' },
  InvalidPart: { status: 400, message: 'One or more of the specified parts could not be found.' },
  InvalidPartOrder: { status: 400, message: 'The list of parts was not in ascending order.' },
  InvalidRange: { status: 416, message: 'The requested range is not satisfiable' },
  InvalidRequest: { status: 400, message: 'Invalid Request' },
  InvalidTag: { status: 400, message: 'The TagKey you have provided is invalid.' },
  InvalidURI: { status: 400, message: "Couldn't parse the specified URI." },
  KeyTooLongError: { status: 400, message: 'Your key is too long' },
  MalformedTrailerError: { status: 400, message: 'The request contained trailing data that was not well-formed.' },
  MalformedXML: { status: 400, message: 'The XML you provided was not well-formed or did not validate.' },
  MethodNotAllowed: { status: 405, message: 'The specified method is not allowed against this resource.' },
  MissingContentLength: { status: 411, message: 'You must provide the Content-Length HTTP header.' },
  NoSuchKey: { status: 404, message: 'The specified key does not exist.' },
  NoSuchUpload: { status: 404, message: 'The specified multipart upload does not exist.' },
  NotImplemented: {
    status: 501,
    message: 'A header or operation you provided implies functionality that is not implemented.',
  },
  PreconditionFailed: { status: 412, message: 'At least one of the preconditions you specified did not hold.' },
  RequestTimeTooSkewed: {
    status: 403,
    message: "The difference between the request time and the server's time is too large.",
  },
  SignatureDoesNotMatch: {
    status: 403,
    message: 'The request signature we calculated does not match the signature you provided.',
  },
  // Real S3's throttle answer: SDKs back off and retry it on their own.
  SlowDown: { status: 503, message: 'Please reduce your request rate.' },
  XAmzContentSHA256Mismatch: {
    status: 400,
    message: "The provided 'x-amz-content-sha256' header does not match what was computed.",
  },
} as const satisfies Record<string, { status: number; message: string }>;

/** A stable S3 error code. */
export type S3ErrorCode = keyof typeof S3_ERRORS;

/** A failure to answer as an S3 XML error; `status` overrides the table (InvalidRequest is 403 for auth). */
export interface S3Failure {
  code: S3ErrorCode;
  message: string;
  status: number;
  /** The region a client should sign for, on a scope naming another one (the error's `Region` element). */
  region?: string;
}

/** Builds an S3 failure with the table's status and message unless overridden. */
export function s3Error(code: S3ErrorCode, message?: string, status?: number): S3Failure {
  const row = S3_ERRORS[code];
  return { code, message: message ?? row.message, status: status ?? row.status };
}

/**
 * Thrown from a verifying body stream so the binding stops, stores nothing and reports `blob-body-failed` with
 * this as its cause; the route maps it back to the S3 error.
 */
export class S3BodyError extends Error {
  readonly failure: S3Failure;
  constructor(failure: S3Failure) {
    super(failure.message);
    this.name = 'S3BodyError';
    this.failure = failure;
  }
}

/** Finds an `S3BodyError` in a thrown value or its `cause` chain. */
export function findBodyFailure(thrown: unknown): S3Failure | undefined {
  let current: unknown = thrown;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    if (current instanceof S3BodyError) return current.failure;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
