import type { BlobContentHeaders, BlobMeta, BlobPutInput, MultipartInitInput } from '../blob-storage.js';

const CONTENT_HEADERS = [
  'contentDisposition',
  'contentEncoding',
  'contentLanguage',
  'cacheControl',
  'expires',
] as const;

/** The parts of a new object's metadata that come from the caller's input. */
export type MetaInput = Pick<
  BlobPutInput,
  'tags' | 'metadata' | 'checksums' | 'ownerRunId' | 'projectId' | 'createdBy'
> &
  BlobContentHeaders & { name: string; contentType: string };

/** Builds the metadata of a freshly stored object; absent optional inputs stay absent (not `undefined`). */
export function buildMeta(
  address: { blobId: string; tenantId: string; bucket: string; key: string },
  input: MetaInput,
  stored: { size: number; hash: string; etag: string; createdAt: string },
): BlobMeta {
  const meta: BlobMeta = {
    ...address,
    name: input.name,
    contentType: input.contentType,
    size: stored.size,
    hash: stored.hash,
    etag: stored.etag,
    tags: { ...(input.tags ?? {}) },
    metadata: lowerCaseNames(input.metadata ?? {}),
    createdAt: stored.createdAt,
  };
  if (input.checksums !== undefined) meta.checksums = { ...input.checksums };
  if (input.ownerRunId !== undefined) meta.ownerRunId = input.ownerRunId;
  if (input.projectId !== undefined) meta.projectId = input.projectId;
  if (input.createdBy !== undefined) meta.createdBy = input.createdBy;
  for (const header of CONTENT_HEADERS) {
    const value = input[header];
    if (value !== undefined) meta[header] = value;
  }
  return meta;
}

/** A multipart upload's stored init input, as metadata input for the completed object. */
export function metaInputFromInit(init: MultipartInitInput, name: string): MetaInput {
  const { contentType, tags, metadata, ownerRunId, createdBy } = init;
  const input: MetaInput = { name, contentType };
  if (tags !== undefined) input.tags = tags;
  if (metadata !== undefined) input.metadata = metadata;
  if (ownerRunId !== undefined) input.ownerRunId = ownerRunId;
  if (createdBy !== undefined) input.createdBy = createdBy;
  for (const header of CONTENT_HEADERS) {
    const value = init[header];
    if (value !== undefined) input[header] = value;
  }
  return input;
}

function lowerCaseNames(metadata: Record<string, string>): Record<string, string> {
  // fromEntries defines own properties, so a name like `__proto__` is kept instead of setting a prototype.
  return Object.fromEntries(Object.entries(metadata).map(([name, value]) => [name.toLowerCase(), value]));
}

/** True when `meta` passes every filter given to `list`. */
export function matchesFilter(
  meta: BlobMeta,
  filter: {
    ownerRunId?: string;
    contentType?: string;
    projectId?: string;
    bucket?: string;
    tags?: Record<string, string>;
  },
): boolean {
  if (filter.ownerRunId !== undefined && meta.ownerRunId !== filter.ownerRunId) return false;
  if (filter.contentType !== undefined && meta.contentType !== filter.contentType) return false;
  if (filter.projectId !== undefined && meta.projectId !== filter.projectId) return false;
  if (filter.bucket !== undefined && meta.bucket !== filter.bucket) return false;
  for (const [name, value] of Object.entries(filter.tags ?? {})) {
    if (meta.tags[name] !== value) return false;
  }
  return true;
}

/** A cursor for `list`: the position (a sequence number) the next page starts below. */
export function encodeListCursor(sequence: number): string {
  return Buffer.from(JSON.stringify({ v: 1, s: sequence }), 'utf8').toString('base64url');
}

/** Reads a `list` cursor back; `undefined` when it is not one we issued. */
export function decodeListCursor(cursor: string): number | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { v?: unknown; s?: unknown };
    return parsed.v === 1 && Number.isSafeInteger(parsed.s) ? (parsed.s as number) : undefined;
  } catch {
    return undefined;
  }
}

/** Page sizes for `list`: default 100, at most 1000. */
export function clampListLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return 100;
  return Math.max(1, Math.min(1000, Math.floor(limit)));
}
