import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { createPostgresPool, migrate, type PostgresPool } from '@kindgi/store-postgres';
import type { TestPostgres } from '@kindgi/test-services/postgres';
import { openS3BlobStorage, type S3BackendConfig, type S3BlobStorage } from '../src/index.js';

/** An S3-compatible server the tests store bytes in, and how to get a fresh bucket on it. */
export interface TestBackend {
  readonly endpoint: string;
  readonly pid: number;
  /** Credentials and a bucket no other test uses (moto: created; Kindgi: its one configured bucket). */
  freshBackend(): Promise<S3BackendConfig>;
  stop(): Promise<void>;
}

let counter = 0;

/** moto accepts any credentials and creates buckets on request. */
export async function motoBackend(moto: {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}): Promise<TestBackend> {
  const client = new S3Client({
    endpoint: moto.endpoint,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: 'testing', secretAccessKey: 'testing' },
  });
  return {
    endpoint: moto.endpoint,
    pid: moto.pid,
    async freshBackend() {
      const bucket = `kindgi-test-${process.pid}-${++counter}`;
      await client.send(new CreateBucketCommand({ Bucket: bucket }));
      return {
        endpoint: moto.endpoint,
        region: 'us-east-1',
        bucket,
        accessKeyId: 'testing',
        secretAccessKey: 'testing',
        forcePathStyle: true,
      };
    },
    async stop() {
      client.destroy();
      await moto.stop();
    },
  };
}

const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/**
 * A second `kindgi-server` (embedded storage) as the object store: unlike moto it checks every signature.
 * Each fresh backend is a prefix... no: one configured bucket, so each test gets a key prefix instead.
 */
export async function kindgiBackend(): Promise<TestBackend & { prefix(): string }> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: build @kindgi/server first`);
  const dataDir = mkdtempSync(join(tmpdir(), 'kindgi-s3-backend-'));
  const accessKeyId = `KINDGI${randomBytes(6).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(24).toString('hex');
  const bucket = 'backend-bytes';
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (!name.startsWith('KINDGI_SERVER_') && value !== undefined) env[name] = value;
  }
  Object.assign(env, {
    KINDGI_SERVER_PORT: '0',
    KINDGI_SERVER_S3_PORT: '0',
    KINDGI_SERVER_DATA_DIR: dataDir,
    KINDGI_SERVER_DOCS: 'false',
    KINDGI_SERVER_TOKENS: JSON.stringify([{ token: randomBytes(16).toString('hex'), tenantId: 'backend' }]),
    KINDGI_SERVER_S3_CREDENTIALS: JSON.stringify([
      { accessKeyId, secretKey: secretAccessKey, tenantId: 'backend', bucket },
    ]),
  });
  const child: ChildProcess = spawn(process.execPath, [SERVER_MAIN], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  const endpoint = await new Promise<string>((resolve, reject) => {
    let buffered = '';
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (const line of buffered.split('\n')) {
        try {
          const record = JSON.parse(line) as { event?: string; s3Url?: string };
          if (record.event === 'listening' && record.s3Url !== undefined) resolve(record.s3Url);
        } catch {
          // A partial line; the rest arrives with the next chunk.
        }
      }
    });
    child.once('exit', (code) => reject(new Error(`kindgi-server exited (${code}) before listening: ${buffered}`)));
  });
  child.stderr!.resume();
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    endpoint,
    pid: child.pid!,
    prefix: () => `t${process.pid}-${++counter}/`,
    async freshBackend() {
      return { endpoint, region: 'us-east-1', bucket, accessKeyId, secretAccessKey, forcePathStyle: true };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A migrated database of its own on the test PostgreSQL server. */
export async function freshPool(pg: TestPostgres): Promise<PostgresPool> {
  const url = await pg.createDatabase(`blobs_${process.pid}_${++counter}`);
  const pool = createPostgresPool({ url, max: 6 });
  const migrated = await migrate(pool);
  if (migrated.kind === 'err') throw new Error(migrated.error.message);
  return pool;
}

/** Opens the storage under test, failing the test with the reason when it cannot. */
export async function openStorage(options: Parameters<typeof openS3BlobStorage>[0]): Promise<S3BlobStorage> {
  const opened = await openS3BlobStorage({ sweepIntervalMs: 0, ...options });
  if (opened.kind === 'err') throw new Error(opened.error.message);
  return opened.value;
}
