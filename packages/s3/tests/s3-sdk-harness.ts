import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { openFsBlobStorage } from '@kindgi/blob-fs';
import { createInMemoryBlobStorage, openStorageInTempDir } from '@kindgi/testing';
import { afterAll, beforeAll } from 'vitest';
import type { CreateS3AppInput } from '../src/index.js';
import { KEY_ID, type S3TestServer, SECRET, startS3Server } from './s3-harness.js';

/** The bindings the AWS SDK suites run against. */
export const SDK_BINDINGS = ['in-memory', 'filesystem (@kindgi/blob-fs)'] as const;

/** One of {@link SDK_BINDINGS}. */
export type SdkBinding = (typeof SDK_BINDINGS)[number];

/** The S3 surface of one `describe`, and AWS SDK clients for it. */
export interface SdkServer {
  /** The running server (from `beforeAll` on). */
  readonly server: S3TestServer;
  /** An SDK v3 client with the test credentials, path-style, no retries (destroyed in `afterAll`). */
  client(extra?: Partial<S3ClientConfig>): S3Client;
}

function storageFor(kind: SdkBinding): { storage: BlobStorageBinding; close(): void } {
  if (kind === 'in-memory') return { storage: createInMemoryBlobStorage(), close: () => undefined };
  return openStorageInTempDir('kindgi-s3-sdk-', (dataDir) => openFsBlobStorage({ dataDir }));
}

/**
 * Serves the S3 surface on a fresh `kind` binding for the enclosing `describe`: started in `beforeAll`;
 * clients, server and storage released in `afterAll`.
 */
export function useSdkServer(kind: SdkBinding, options: Partial<CreateS3AppInput> = {}): SdkServer {
  let server: S3TestServer | undefined;
  let storage: ReturnType<typeof storageFor> | undefined;
  const clients: S3Client[] = [];
  beforeAll(async () => {
    storage = storageFor(kind);
    server = await startS3Server({ ...options, blobStorage: storage.storage });
  });
  afterAll(async () => {
    for (const c of clients.splice(0)) c.destroy();
    await server?.close();
    storage?.close();
  });
  const running = (): S3TestServer => {
    if (server === undefined) throw new Error('the S3 test server starts in beforeAll');
    return server;
  };
  return {
    get server() {
      return running();
    },
    client: (extra = {}) => {
      const c = new S3Client({
        endpoint: running().endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
        maxAttempts: 1,
        ...extra,
      });
      clients.push(c);
      return c;
    },
  };
}
