import type { BlobContentHeaders, BlobMeta } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { CHECKSUM_ALGORITHMS, storedChecksumType } from './checksums.js';
import { headerBytes, headerText } from './request.js';
import { quoteEtag } from './xml.js';

/** The object attributes a PUT or InitiateMultipartUpload carries in its headers. */
export interface ObjectAttributes extends BlobContentHeaders {
  contentType: string;
  metadata: Record<string, string>;
  tags: Record<string, string>;
}

const CONTENT_HEADERS: ReadonlyArray<[keyof BlobContentHeaders, string]> = [
  ['contentDisposition', 'content-disposition'],
  ['contentEncoding', 'content-encoding'],
  ['contentLanguage', 'content-language'],
  ['cacheControl', 'cache-control'],
  ['expires', 'expires'],
];

/** Why a request's object attributes were refused, as the S3 error code and message to answer with. */
export interface AttributeProblem {
  code: 'InvalidArgument' | 'InvalidTag';
  message: string;
}

/**
 * `Content-Encoding` without the `aws-chunked` token (transfer framing, never part of the stored object's
 * encoding); the other tokens stay exactly as sent, separators included, as S3 keeps them.
 */
export function storedContentEncoding(value: string): string | undefined {
  const tokens = value.split(',');
  const kept = tokens.filter((token) => token.trim().toLowerCase() !== 'aws-chunked');
  if (kept.length === tokens.length) return value;
  const joined = kept.join(',').trim();
  return joined === '' ? undefined : joined;
}

/** Reads `x-amz-tagging` (a query string): at most 10 tags, each key once, S3's length limits. */
export function readTagging(tagging: string): Result<Record<string, string>, AttributeProblem> {
  // No prototype: a tag named `__proto__` is a key like any other.
  const tags = Object.create(null) as Record<string, string>;
  let count = 0;
  for (const [name, value] of new URLSearchParams(tagging)) {
    if (name === '' || name.length > 128 || value.length > 256) {
      return err({ code: 'InvalidTag', message: 'The TagKey or TagValue you have provided is invalid.' });
    }
    if (Object.hasOwn(tags, name)) {
      return err({ code: 'InvalidTag', message: 'Cannot provide multiple Tags with the same key' });
    }
    tags[name] = value;
    count++;
  }
  if (count > 10) return err({ code: 'InvalidTag', message: 'Object tags cannot be greater than 10' });
  return ok(tags);
}

/** Reads content type, content headers, `x-amz-meta-*` and `x-amz-tagging` from request headers. */
export function readObjectAttributes(headers: Headers): Result<ObjectAttributes, AttributeProblem> {
  const attributes: ObjectAttributes = {
    contentType: headers.get('content-type') ?? 'binary/octet-stream',
    // No prototype: `x-amz-meta-__proto__` is stored like any other name.
    metadata: Object.create(null) as Record<string, string>,
    tags: Object.create(null) as Record<string, string>,
  };
  for (const [field, name] of CONTENT_HEADERS) {
    const raw = headers.get(name);
    if (raw === null) continue;
    const value = field === 'contentEncoding' ? storedContentEncoding(raw) : raw;
    if (value === undefined) continue;
    attributes[field] = headerText(value);
  }
  for (const [name, value] of headers) {
    if (name.startsWith('x-amz-meta-') && name.length > 'x-amz-meta-'.length) {
      attributes.metadata[name.slice('x-amz-meta-'.length)] = headerText(value);
    }
  }
  const tagging = headers.get('x-amz-tagging');
  if (tagging !== null && tagging !== '') {
    const tags = readTagging(tagging);
    if (tags.kind === 'err') return tags;
    attributes.tags = tags.value;
  }
  return ok(attributes);
}

/** A user metadata value as a response header: non-ASCII text RFC 2047 encoded, as S3 answers it. */
export function metadataHeaderValue(value: string): string {
  // Printable ASCII (and tab) passes as it is; anything else would reach clients as latin1 bytes.
  if (/^[\x20-\x7e\t]*$/.test(value)) return value;
  return `=?UTF-8?B?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** An HTTP date from the stored ISO timestamp. */
export function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

const OVERRIDES: ReadonlyArray<[string, string]> = [
  ['response-content-type', 'content-type'],
  ['response-content-language', 'content-language'],
  ['response-expires', 'expires'],
  ['response-cache-control', 'cache-control'],
  ['response-content-disposition', 'content-disposition'],
  ['response-content-encoding', 'content-encoding'],
];

/** The header naming an object's blob id, for use across surfaces (never an `x-amz-meta-*` name). */
export const BLOB_ID_HEADER = 'x-kindgi-blob-id';

/**
 * The headers GET and HEAD answer with: content headers, ETag, Last-Modified, exactly the user metadata the
 * client stored, tag count, the blob id (`x-kindgi-blob-id`) and, when `checksums` is set (a full-object
 * answer asked for with `x-amz-checksum-mode: ENABLED`), the stored checksums and their `x-amz-checksum-type`.
 */
export function objectHeaders(meta: BlobMeta, query: ReadonlyMap<string, string>, checksums: boolean): Headers {
  const headers = new Headers({
    'content-type': meta.contentType,
    etag: quoteEtag(meta.etag),
    'last-modified': httpDate(meta.createdAt),
    'accept-ranges': 'bytes',
  });
  for (const [field, name] of CONTENT_HEADERS) {
    const value = meta[field];
    if (value !== undefined) headers.set(name, headerBytes(value));
  }
  for (const [name, value] of Object.entries(meta.metadata))
    headers.set(`x-amz-meta-${name}`, metadataHeaderValue(value));
  headers.set(BLOB_ID_HEADER, meta.blobId);
  const tagCount = Object.keys(meta.tags).length;
  if (tagCount > 0) headers.set('x-amz-tagging-count', String(tagCount));
  if (checksums && meta.checksums) {
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const value = meta.checksums[algorithm];
      if (value !== undefined) headers.set(`x-amz-checksum-${algorithm}`, value);
    }
    const type = storedChecksumType(meta.checksums);
    if (type !== undefined) headers.set('x-amz-checksum-type', type);
  }
  for (const [param, name] of OVERRIDES) {
    const value = query.get(param);
    if (value !== undefined) headers.set(name, headerBytes(value));
  }
  return headers;
}
