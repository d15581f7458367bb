import { createRoute, z } from '@hono/zod-openapi';
import { bearerSecurity, errorResponses, PageQuerySchema, pageOf } from '../../openapi/schemas.js';

const StringMap = z.record(z.string(), z.string());

/** A stored artifact's metadata (the blob's `BlobMeta`). */
export const ArtifactSchema = z
  .object({
    blobId: z.string(),
    tenantId: z.string(),
    bucket: z.string(),
    key: z.string(),
    name: z.string(),
    contentType: z.string(),
    size: z.number().int(),
    hash: z.string().openapi({ description: 'sha256 of the bytes, lowercase hex' }),
    etag: z.string(),
    tags: StringMap,
    metadata: StringMap,
    ownerRunId: z.string().optional(),
    projectId: z.string().optional(),
    createdBy: z.string().optional(),
    createdAt: z.string(),
  })
  .openapi('Artifact');

export const BlobIdParams = z.object({
  blobId: z
    .string()
    .min(1)
    .openapi({ param: { name: 'blobId', in: 'path' } }),
});

const download = {
  description: 'The bytes (206 with Content-Range for a single Range)',
  headers: {
    'X-Kindgi-Blob-Hash': { schema: { type: 'string' as const }, description: 'sha256 hex of the whole artifact' },
    'X-Kindgi-Blob-Name': { schema: { type: 'string' as const }, description: 'URI-encoded name' },
  },
  // Served with the Content-Type it was stored with (the upload's `contentType`), so any media type.
  content: { '*/*': { schema: z.string().openapi({ format: 'binary' }) } },
};

export const uploadArtifactRoute = createRoute({
  method: 'post',
  path: '/v1/artifacts',
  tags: ['artifacts'],
  summary: 'Upload an artifact (multipart/form-data, streamed; text fields before the file part)',
  security: bearerSecurity,
  request: {
    body: {
      required: true,
      content: {
        'multipart/form-data': {
          schema: z.object({
            name: z.string().optional(),
            contentType: z.string().optional(),
            tags: z.string().optional().openapi({ description: 'JSON object of string values' }),
            ownerRunId: z.string().optional(),
            projectId: z.string().optional(),
            expectedHash: z.string().optional().openapi({ description: 'sha256 hex (64 lowercase)' }),
            file: z.string().openapi({ format: 'binary' }),
          }),
        },
      },
    },
  },
  responses: {
    201: { description: 'Stored', content: { 'application/json': { schema: ArtifactSchema } } },
    ...errorResponses(400, 401, 404, 409, 413, 503),
  },
});

export const ArtifactListQuery = PageQuerySchema.extend({
  ownerRunId: z.string().min(1).optional(),
  contentType: z.string().min(1).optional(),
  projectId: z.string().min(1).optional(),
});

export const listArtifactsRoute = createRoute({
  method: 'get',
  path: '/v1/artifacts',
  tags: ['artifacts'],
  summary: 'List artifacts (newest first); `tag.<key>=<value>` filters AND together',
  security: bearerSecurity,
  request: { query: ArtifactListQuery },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: pageOf(ArtifactSchema, 'ArtifactPage') } } },
    ...errorResponses(400, 401, 503),
  },
});

export const getArtifactRoute = createRoute({
  method: 'get',
  path: '/v1/artifacts/{blobId}',
  tags: ['artifacts'],
  summary: 'Download an artifact (single Range supported)',
  description:
    'Answers with the Content-Type the artifact was stored with. `Range`: one `bytes=N-M`, `bytes=N-` or ' +
    '`bytes=-M` is 206 with Content-Range (an end past the last byte is clamped); a header of another unit is ' +
    'ignored (200, whole artifact); several ranges, a malformed byte range, an end before its start ' +
    '(`bytes=3-2`), a start at or past the end, `bytes=-0` and any range of an empty artifact are 416 ' +
    '`range-not-satisfiable` with `Content-Range: bytes */<size>`.',
  security: bearerSecurity,
  request: { params: BlobIdParams },
  responses: { 200: download, 206: download, ...errorResponses(401, 404, 416, 503) },
});

export const headArtifactRoute = createRoute({
  method: 'head',
  path: '/v1/artifacts/{blobId}',
  tags: ['artifacts'],
  summary: "An artifact's headers without its bytes",
  security: bearerSecurity,
  request: { params: BlobIdParams },
  responses: {
    200: { description: 'Found', headers: download.headers },
    // HEAD answers carry no body: the statuses of GET's errors, without their envelope.
    401: { description: 'No or unknown bearer token' },
    404: { description: 'Not found' },
    503: { description: 'Storage unavailable; retry later' },
  },
});

export const deleteArtifactRoute = createRoute({
  method: 'delete',
  path: '/v1/artifacts/{blobId}',
  tags: ['artifacts'],
  summary: 'Delete an artifact',
  security: bearerSecurity,
  request: { params: BlobIdParams },
  responses: {
    200: {
      description: 'Deleted',
      content: {
        'application/json': {
          schema: z.object({ blobId: z.string(), deleted: z.boolean() }).openapi('ArtifactDeleted'),
        },
      },
    },
    ...errorResponses(401, 404, 503),
  },
});

/** Every artifact route, for the OpenAPI document. */
export const artifactRoutes = [
  uploadArtifactRoute,
  listArtifactsRoute,
  getArtifactRoute,
  headArtifactRoute,
  deleteArtifactRoute,
];
