import type { ApiLogger, BlobStorageBinding } from '@kindgi/bindings';
import { type S3Failure, s3Error } from './errors.js';
import type { VerifiedSigV4 } from './sigv4/verify.js';
import { errorDocument } from './xml.js';

/** Everything an S3 operation handler needs about one authenticated request. */
export interface S3Request {
  method: string;
  requestId: string;
  tenantId: string;
  bucket: string;
  /** Decoded object key; `''` for bucket-level requests. */
  key: string;
  /** Decoded query parameters, first value wins. */
  query: ReadonlyMap<string, string>;
  header(name: string): string | undefined;
  auth: VerifiedSigV4;
  /** The raw request body as it arrives (still aws-chunked if it was sent so). */
  body(): AsyncIterable<Uint8Array>;
  /** The path the client addressed, for error `Resource` elements. */
  resource: string;
  storage: BlobStorageBinding;
  logger: ApiLogger;
}

/** An XML (or, for HEAD, empty) S3 error response. */
export function errorResponse(failure: S3Failure, requestId: string, method: string, resource?: string): Response {
  const headers = new Headers({ 'x-amz-request-id': requestId });
  if (method === 'HEAD') return new Response(null, { status: failure.status, headers });
  headers.set('content-type', 'application/xml');
  return new Response(errorDocument(failure, requestId, resource), { status: failure.status, headers });
}

/** An XML document response. */
export function xmlResponse(xml: string, status = 200): Response {
  return new Response(xml, { status, headers: { 'content-type': 'application/xml' } });
}

const decoder = new TextDecoder('utf-8', { fatal: true });

/** Decodes a percent-encoded path piece into a key; invalid UTF-8 answers `InvalidURI`. */
export function decodeKey(raw: string): string | S3Failure {
  const bytes: number[] = [];
  const source = Buffer.from(raw, 'utf8');
  for (let i = 0; i < source.length; i++) {
    const byte = source[i]!;
    if (byte === 0x25 && i + 2 < source.length) {
      const hex = source.toString('latin1', i + 1, i + 3);
      if (/^[0-9a-fA-F]{2}$/.test(hex)) {
        bytes.push(Number.parseInt(hex, 16));
        i += 2;
        continue;
      }
    }
    bytes.push(byte);
  }
  try {
    return decoder.decode(Uint8Array.from(bytes));
  } catch {
    return s3Error('InvalidURI', 'The key is not valid UTF-8.');
  }
}

/** Node hands header values over as latin1; S3 metadata values are UTF-8 bytes, so re-read them as such. */
export function headerText(value: string): string {
  if (!/[\x80-\xff]/.test(value)) return value;
  const bytes = Buffer.from(value, 'latin1');
  try {
    return decoder.decode(bytes);
  } catch {
    return value;
  }
}

/** The reverse of `headerText`: a UTF-8 string as the latin1 byte string a response header carries. */
export function headerBytes(value: string): string {
  return Buffer.byteLength(value) !== value.length ? Buffer.from(value, 'utf8').toString('latin1') : value;
}
