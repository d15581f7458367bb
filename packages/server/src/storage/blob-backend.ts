import { join } from 'node:path';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { openFsBlobStorage } from '@kindgi/blob-fs';
import { openS3BlobStorage } from '@kindgi/blob-s3';
import { err, ok, type Result } from '@kindgi/protocol';
import { createPostgresPool, maskDatabaseUrl, migrate, type PostgresPool } from '@kindgi/store-postgres';
import type { KindgiDatabase } from '@kindgi/store-sqlite';
import { z } from 'zod';
import type { ServerLogger } from '../telemetry/logger.js';

/** `blobs`: where artifact and S3 object bytes live. Without it, files under `<dataDir>/objects`. */
export const blobsConfigSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('fs') }),
  z.strictObject({
    kind: z.literal('s3'),
    /** Omitted for AWS S3 itself. */
    endpoint: z.url({ protocol: /^https?$/ }).optional(),
    region: z.string().min(1).default('us-east-1'),
    bucket: z.string().min(3).max(63),
    accessKeyId: z.string().min(1),
    secretAccessKey: z.string().min(1),
    forcePathStyle: z.boolean().default(false),
    /** Prepended to every object name, so one bucket can hold several deployments. */
    prefix: z.string().optional(),
    /** Bytes all uploads of this server may buffer at once (default 256 MiB, at least 8 MiB: one part). */
    uploadBufferBytes: z
      .number()
      .int()
      .min(8 * 1024 * 1024)
      .optional(),
    /** How long a new upload waits for buffer room before its 503 `SlowDown` (default 10,000 ms). */
    uploadBufferWaitMs: z.number().int().min(0).max(60_000).optional(),
  }),
]);

export type BlobsConfig = z.output<typeof blobsConfigSchema>;

const BLOBS_ENV: Record<string, string> = {
  KINDGI_SERVER_BLOBS_KIND: 'kind',
  KINDGI_SERVER_BLOBS_ENDPOINT: 'endpoint',
  KINDGI_SERVER_BLOBS_REGION: 'region',
  KINDGI_SERVER_BLOBS_BUCKET: 'bucket',
  KINDGI_SERVER_BLOBS_ACCESS_KEY_ID: 'accessKeyId',
  KINDGI_SERVER_BLOBS_SECRET_ACCESS_KEY: 'secretAccessKey',
  KINDGI_SERVER_BLOBS_PREFIX: 'prefix',
};

/**
 * The `KINDGI_SERVER_BLOBS_*` variables, field by field (so a secret can come from the environment while the
 * rest stays in the file); `undefined` when none is set. A value is never quoted back in a problem.
 */
export function blobsFromEnv(env: NodeJS.ProcessEnv, problems: string[]): Record<string, unknown> | undefined {
  const blobs: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(BLOBS_ENV)) {
    const value = env[name];
    if (value !== undefined && value !== '') blobs[field] = value;
  }
  const pathStyle = env.KINDGI_SERVER_BLOBS_FORCE_PATH_STYLE;
  if (pathStyle !== undefined && pathStyle !== '') {
    if (pathStyle === 'true' || pathStyle === 'false') blobs.forcePathStyle = pathStyle === 'true';
    else problems.push('KINDGI_SERVER_BLOBS_FORCE_PATH_STYLE must be true or false');
  }
  return Object.keys(blobs).length > 0 ? blobs : undefined;
}

/**
 * The database the blob metadata goes to: `database.url` of the config (read loosely: the field belongs to the
 * run and idempotency stores' wiring, which may not be part of this config yet).
 */
export function blobDatabase(config: object): { databaseUrl?: string } {
  const url = (config as { database?: { url?: unknown } }).database?.url;
  return typeof url === 'string' && url !== '' ? { databaseUrl: url } : {};
}

/** The blob storage a server serves, whichever backend holds the bytes. */
export type ServerBlobStorage = BlobStorageBinding & {
  close(): Promise<void>;
  /** With bytes in an object store: one bounded lookup of its bucket, for `/readyz`. */
  checkObjectStore?(timeoutMs: number): Promise<Result<true, unknown>>;
};

/** What opening the blob storage needs besides the config. */
export interface BlobBackendContext {
  dataDir: string;
  /** The embedded database, for the `fs` backend's rows. */
  database: KindgiDatabase;
  /** The shared PostgreSQL pool when the server has one; otherwise one is opened from `databaseUrl`. */
  pool?: PostgresPool;
  databaseUrl?: string;
  logger: ServerLogger;
  /** How long unfinished multipart uploads are kept (`s3.multipartExpiryMs`), by either backend. */
  multipartExpiryMs?: number;
  /** Multipart uploads one tenant may have in progress (`s3.maxOpenUploadsPerTenant`), by either backend. */
  maxOpenUploadsPerTenant?: number;
}

async function openS3(blobs: Extract<BlobsConfig, { kind: 's3' }>, context: BlobBackendContext) {
  let pool = context.pool;
  let ownPool: PostgresPool | undefined;
  if (pool === undefined) {
    if (context.databaseUrl === undefined)
      return err(['blobs: kind "s3" keeps its metadata in PostgreSQL: set database.url']);
    ownPool = createPostgresPool({
      url: context.databaseUrl,
      applicationName: 'kindgi-blobs',
      onError: (cause) => context.logger.log('warn', 'database-connection', `blob metadata: ${cause.message}`),
    });
    pool = ownPool;
    const migrated = await migrate(pool);
    if (migrated.kind === 'err') {
      await ownPool.end().catch(() => undefined);
      return err([`database ${maskDatabaseUrl(context.databaseUrl)}: ${migrated.error.message}`]);
    }
  }
  const { kind: _kind, prefix, uploadBufferBytes, uploadBufferWaitMs, ...backend } = blobs;
  const opened = await openS3BlobStorage({
    pool,
    backend,
    ...(prefix !== undefined ? { prefix } : {}),
    ...(uploadBufferBytes !== undefined ? { uploadBufferBytes } : {}),
    ...(uploadBufferWaitMs !== undefined ? { uploadBufferWaitMs } : {}),
    ...(context.multipartExpiryMs !== undefined ? { multipartExpiryMs: context.multipartExpiryMs } : {}),
    ...(context.maxOpenUploadsPerTenant !== undefined
      ? { maxOpenUploadsPerTenant: context.maxOpenUploadsPerTenant }
      : {}),
  });
  if (opened.kind === 'err') {
    await ownPool?.end().catch(() => undefined);
    // The store's answer names the bucket and the endpoint; the secret never reaches it.
    return err([`blobs: ${opened.error.message}`]);
  }
  const storage = opened.value;
  context.logger.log('info', 'blob-storage', `object bytes in bucket ${blobs.bucket}`, {
    bucket: blobs.bucket,
    ...(blobs.endpoint !== undefined ? { endpoint: blobs.endpoint } : {}),
  });
  return ok<ServerBlobStorage>({
    ...storage,
    async close() {
      await storage.close();
      await ownPool?.end().catch(() => undefined);
    },
  });
}

/**
 * Opens the configured blob storage: the embedded folder (sweeping an earlier crash's leftovers), or an
 * S3-compatible bucket with metadata in PostgreSQL (failing when the bucket does not answer).
 */
export async function openServerBlobStorage(
  blobs: BlobsConfig | undefined,
  context: BlobBackendContext,
): Promise<Result<ServerBlobStorage, string[]>> {
  if (blobs?.kind === 's3') return openS3(blobs, context);
  const opened = openFsBlobStorage({
    dataDir: join(context.dataDir, 'objects'),
    database: context.database,
    ...(context.multipartExpiryMs !== undefined ? { multipartExpiryMs: context.multipartExpiryMs } : {}),
    ...(context.maxOpenUploadsPerTenant !== undefined
      ? { maxOpenUploadsPerTenant: context.maxOpenUploadsPerTenant }
      : {}),
  });
  if (opened.kind === 'err') return err([`storage: ${opened.error.message}`]);
  const storage = opened.value;
  if (storage.swept > 0) {
    context.logger.log('info', 'storage-swept', `removed ${storage.swept} leftovers of an earlier crash`);
  }
  return ok({ ...storage, close: async () => storage.close() });
}
