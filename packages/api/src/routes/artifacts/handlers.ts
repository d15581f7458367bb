import type { OpenAPIHono } from '@hono/zod-openapi';
import {
  type BlobFilter,
  type BlobMeta,
  type BlobStorageBinding,
  type RunStore,
  readRangeHeader,
} from '@kindgi/bindings';
import { canonicalJson } from '@kindgi/protocol';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { apiErrorFromBlob } from '../../errors/blob-errors.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import {
  deleteArtifactRoute,
  getArtifactRoute,
  headArtifactRoute,
  listArtifactsRoute,
  uploadArtifactRoute,
} from './definitions.js';
import { handleUpload } from './upload.js';

/** What the artifact routes need. */
export interface ArtifactDeps {
  blobStorage: BlobStorageBinding;
  runStore: RunStore | undefined;
  cursors: CursorSealer;
  maxBytes: number;
}

/** Mounts `/v1/artifacts` (upload, list, download, head, delete) over the blob binding. */
export function registerArtifactRoutes(app: OpenAPIHono<AppEnv>, deps: ArtifactDeps): void {
  const { blobStorage, cursors } = deps;

  // Multipart bodies stream through busboy; the generated form validator would buffer them, so the
  // upload route is documented from its definition and mounted as a plain handler.
  app.openAPIRegistry.registerPath(uploadArtifactRoute);
  app.post('/v1/artifacts', (c) => handleUpload(c, deps));

  app.openapi(listArtifactsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const query = c.req.valid('query');
    const filter: BlobFilter = {};
    if (query.ownerRunId !== undefined) filter.ownerRunId = query.ownerRunId;
    if (query.contentType !== undefined) filter.contentType = query.contentType;
    if (query.projectId !== undefined) filter.projectId = query.projectId;
    const tags = tagFilters(c.req.queries());
    if (tags !== undefined) filter.tags = tags;
    const scope = `${tenantId}|artifacts|${canonicalJson(filter)}`;
    const inner = query.cursor === undefined ? undefined : cursors.open(scope, query.cursor);
    const page = await blobStorage.list(tenantId, filter, inner, query.limit);
    if (page.kind === 'err') throw apiErrorFromBlob(page.error);
    const body: { data: BlobMeta[]; hasMore: boolean; nextCursor?: string } = {
      data: page.value.data,
      hasMore: page.value.nextCursor !== undefined,
    };
    if (page.value.nextCursor !== undefined) body.nextCursor = cursors.seal(scope, page.value.nextCursor);
    return c.json(body, 200);
  });

  app.openAPIRegistry.registerPath(headArtifactRoute);
  // Hono answers HEAD through the GET route (and drops the body); the handler skips opening the stream.
  app.openapi(getArtifactRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const { blobId } = c.req.valid('param');
    const meta = await blobStorage.head(tenantId, blobId);
    if (meta.kind === 'err') throw apiErrorFromBlob(meta.error);
    if (meta.value === null) throw new ApiError('blob-not-found', 'No artifact has this id.', { blobId });
    const headers = artifactHeaders(meta.value);
    if (c.req.method === 'HEAD') return new Response(null, { status: 200, headers });
    const wanted = readRangeHeader(c.req.header('range'), meta.value.size);
    // Unlike S3 (AWS ignores it), the REST API documents an end before its start as 416.
    if (wanted.kind === 'unsatisfiable' || wanted.kind === 'reversed') {
      throw new ApiError(
        'range-not-satisfiable',
        'Only one byte range inside the artifact can be served.',
        {
          size: meta.value.size,
        },
        { 'content-range': `bytes */${meta.value.size}` },
      );
    }
    const read = await blobStorage.get(
      tenantId,
      blobId,
      wanted.kind === 'partial' ? { range: wanted.range } : undefined,
    );
    if (read.kind === 'err') throw apiErrorFromBlob(read.error);
    if (wanted.kind === 'partial') {
      const { start, end } = wanted.range;
      headers.set('content-length', String(end - start + 1));
      headers.set('content-range', `bytes ${start}-${end}/${meta.value.size}`);
      return new Response(read.value.stream, { status: 206, headers });
    }
    return new Response(read.value.stream, { status: 200, headers });
  });

  app.openapi(deleteArtifactRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const { blobId } = c.req.valid('param');
    const meta = await blobStorage.head(tenantId, blobId);
    if (meta.kind === 'err') throw apiErrorFromBlob(meta.error);
    if (meta.value === null) throw new ApiError('blob-not-found', 'No artifact has this id.', { blobId });
    const deleted = await blobStorage.delete(tenantId, blobId);
    if (deleted.kind === 'err') throw apiErrorFromBlob(deleted.error);
    return c.json({ blobId, deleted: deleted.value.deleted }, 200);
  });
}

function artifactHeaders(meta: BlobMeta): Headers {
  return new Headers({
    'content-type': meta.contentType,
    'content-length': String(meta.size),
    'accept-ranges': 'bytes',
    etag: `"${meta.etag}"`,
    'x-kindgi-blob-hash': meta.hash,
    'x-kindgi-blob-name': encodeURIComponent(meta.name),
  });
}

/** `tag.<key>=<value>` query parameters; an empty key is bad input. */
function tagFilters(queries: Record<string, string[]>): Record<string, string> | undefined {
  let tags: Record<string, string> | undefined;
  for (const [name, values] of Object.entries(queries)) {
    if (!name.startsWith('tag.')) continue;
    const key = name.slice('tag.'.length);
    if (key === '') throw new ApiError('bad-input', 'A tag filter needs a key: tag.<key>=<value>.', { param: name });
    if (values.length !== 1) throw new ApiError('bad-input', `Give ${name} once.`, { param: name });
    tags ??= {};
    tags[key] = values[0] ?? '';
  }
  return tags;
}
