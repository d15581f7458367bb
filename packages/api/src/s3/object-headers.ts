import type { BlobContentHeaders, BlobMeta } from '@kindgi/bindings';
import { CHECKSUM_ALGORITHMS } from './checksums.js';
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

/** Reads content type, content headers, `x-amz-meta-*` and `x-amz-tagging` from request headers. */
export function readObjectAttributes(headers: Headers): ObjectAttributes | string {
  const attributes: ObjectAttributes = {
    contentType: headers.get('content-type') ?? 'binary/octet-stream',
    metadata: {},
    tags: {},
  };
  for (const [field, name] of CONTENT_HEADERS) {
    let value = headers.get(name);
    if (value === null) continue;
    // aws-chunked is transfer framing, never part of the stored object's encoding.
    if (field === 'contentEncoding') {
      value = value
        .split(',')
        .map((token) => token.trim())
        .filter((token) => token !== '' && token.toLowerCase() !== 'aws-chunked')
        .join(',');
      if (value === '') continue;
    }
    attributes[field] = headerText(value);
  }
  for (const [name, value] of headers) {
    if (name.startsWith('x-amz-meta-') && name.length > 'x-amz-meta-'.length) {
      attributes.metadata[name.slice('x-amz-meta-'.length)] = headerText(value);
    }
  }
  const tagging = headers.get('x-amz-tagging');
  if (tagging !== null && tagging !== '') {
    for (const [name, value] of new URLSearchParams(tagging)) {
      if (name === '' || name.length > 128 || value.length > 256) return 'The x-amz-tagging header is invalid.';
      attributes.tags[name] = value;
    }
    if (Object.keys(attributes.tags).length > 10) return 'Object tags cannot be greater than 10.';
  }
  return attributes;
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

/**
 * The headers GET and HEAD answer with: content headers, ETag, Last-Modified, user metadata, tag count, the
 * blob id for cross-surface use, and the stored checksums for a full-object answer.
 */
export function objectHeaders(meta: BlobMeta, query: ReadonlyMap<string, string>, full: boolean): Headers {
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
  for (const [name, value] of Object.entries(meta.metadata)) headers.set(`x-amz-meta-${name}`, headerBytes(value));
  if (meta.metadata['blob-id'] === undefined) headers.set('x-amz-meta-blob-id', meta.blobId);
  if (meta.ownerRunId !== undefined && meta.metadata['owner-run-id'] === undefined) {
    headers.set('x-amz-meta-owner-run-id', meta.ownerRunId);
  }
  const tagCount = Object.keys(meta.tags).length;
  if (tagCount > 0) headers.set('x-amz-tagging-count', String(tagCount));
  if (full && meta.checksums) {
    for (const algorithm of CHECKSUM_ALGORITHMS) {
      const value = meta.checksums[algorithm];
      if (value !== undefined) headers.set(`x-amz-checksum-${algorithm}`, value);
    }
  }
  for (const [param, name] of OVERRIDES) {
    const value = query.get(param);
    if (value !== undefined) headers.set(name, headerBytes(value));
  }
  return headers;
}
