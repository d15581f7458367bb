import { join } from 'node:path';
import {
  AbortMultipartUploadCommand,
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  cleanupTempDirs,
  makeTempDir,
  type RunningServer,
  startServer,
  stopAllServers,
  writeConfig,
} from './harness.js';

// A tenant may hold a bounded number of multipart uploads in progress (`s3.maxOpenUploadsPerTenant`): one more
// is answered 503 SlowDown (which SDKs retry with backoff), naming the cap; another tenant is unaffected.
const A = { accessKeyId: 'KGICAPTENANTA01', secretAccessKey: 'cap-secret-a-0123456789abcdef' };
const B = { accessKeyId: 'KGICAPTENANTB01', secretAccessKey: 'cap-secret-b-0123456789abcdef' };
const CAP = 3;

describe('open multipart uploads per tenant (dist/main.js, embedded storage)', () => {
  let server: RunningServer;
  const clients: S3Client[] = [];
  const s3 = (credentials: typeof A): S3Client => {
    const client = new S3Client({
      endpoint: `${server.url}/s3`,
      region: 'us-east-1',
      forcePathStyle: true,
      maxAttempts: 1,
      credentials,
    });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    const dir = makeTempDir('upload-cap');
    server = await startServer(
      writeConfig(dir, join(dir, 'data'), {
        packs: [],
        docs: false,
        s3: { maxOpenUploadsPerTenant: CAP },
        s3Credentials: [
          { accessKeyId: A.accessKeyId, secretKey: A.secretAccessKey, tenantId: 'tenant-a', bucket: 'artifacts' },
          { accessKeyId: B.accessKeyId, secretKey: B.secretAccessKey, tenantId: 'tenant-b', bucket: 'artifacts' },
        ],
      }),
    );
  }, 60_000);

  afterAll(async () => {
    for (const client of clients) client.destroy();
    await stopAllServers();
    cleanupTempDirs();
  });

  it(`CreateMultipartUpload past ${CAP} in progress is 503 SlowDown until one ends; other tenants are unaffected`, async () => {
    const a = s3(A);
    const create = (client: S3Client, key: string) =>
      client.send(new CreateMultipartUploadCommand({ Bucket: 'artifacts', Key: key }));
    // Begun at once, past the cap: exactly the cap's worth open.
    const begun = await Promise.allSettled(Array.from({ length: CAP + 2 }, (_, n) => create(a, `cap/${n}`)));
    const opened = begun.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    expect(opened).toHaveLength(CAP);
    const refused = begun.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    expect(refused).toHaveLength(2);
    for (const reason of refused) {
      expect(reason).toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
      expect((reason as Error).message).toContain(`${CAP} multipart uploads in progress`);
    }
    const listed = await a.send(new ListMultipartUploadsCommand({ Bucket: 'artifacts' }));
    expect(listed.Uploads).toHaveLength(CAP);

    // Another tenant has its own count.
    expect((await create(s3(B), 'cap/0')).UploadId).toEqual(expect.any(String));

    // An aborted upload no longer counts.
    const first = opened[0]!;
    await a.send(new AbortMultipartUploadCommand({ Bucket: 'artifacts', Key: first.Key!, UploadId: first.UploadId! }));
    expect((await create(a, 'cap/again')).UploadId).toEqual(expect.any(String));
    await expect(create(a, 'cap/over')).rejects.toMatchObject({ name: 'SlowDown' });
  });
});
