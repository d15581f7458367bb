import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  type S3ServiceException,
  UploadPartCopyCommand,
  type UploadPartCopyCommandInput,
} from '@aws-sdk/client-s3';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { ok } from '@kindgi/protocol';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { BUCKET, KEY_ID, SECRET, startS3Server, TENANT } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

const MIB = 1024 * 1024;
const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('base64');

async function bytesOf(s3: S3Client, bucket: string, key: string): Promise<Buffer> {
  const got = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

async function failure(sent: Promise<unknown>): Promise<{ code: string; status: number | undefined; message: string }> {
  try {
    await sent;
  } catch (thrown) {
    const error = thrown as S3ServiceException;
    return { code: error.name, status: error.$metadata?.httpStatusCode, message: error.message };
  }
  throw new Error('the request was expected to fail');
}

const clients: S3Client[] = [];
afterAll(() => {
  for (const c of clients.splice(0)) c.destroy();
});

function clientFor(endpoint: string): S3Client {
  const c = new S3Client({
    endpoint,
    forcePathStyle: true,
    region: 'us-east-1',
    credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
    maxAttempts: 1,
  });
  clients.push(c);
  return c;
}

describe.each(SDK_BINDINGS)('UploadPartCopy against the %s binding', (kind) => {
  const sdk = useSdkServer(kind);
  const big = randomBytes(11 * MIB + 777);
  const small = randomBytes(3000);

  it('copies ranges and a whole source into parts; the completed object has exactly those bytes', async () => {
    const s3 = sdk.client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'part/big.bin', Body: big }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'part/ünï small.bin', Body: small }));
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'part/joined.bin', ChecksumAlgorithm: 'SHA256' }),
    );
    const base = { Bucket: BUCKET, Key: 'part/joined.bin', UploadId };
    const split = 6 * MIB;
    const pieces: Array<[UploadPartCopyCommandInput, Buffer]> = [
      [
        { ...base, PartNumber: 1, CopySource: `${BUCKET}/part/big.bin`, CopySourceRange: `bytes=0-${split - 1}` },
        big.subarray(0, split),
      ],
      [
        {
          ...base,
          PartNumber: 2,
          CopySource: `/${BUCKET}/part/big.bin`,
          CopySourceRange: `bytes=${split}-${big.length - 1}`,
        },
        big.subarray(split),
      ],
      [{ ...base, PartNumber: 3, CopySource: `${BUCKET}/part/${encodeURIComponent('ünï small.bin')}` }, small],
    ];
    const parts = [];
    for (const [input, expected] of pieces) {
      const copied = await s3.send(new UploadPartCopyCommand(input));
      expect(copied.CopyPartResult?.ETag).toBe(`"${md5(expected)}"`);
      expect(copied.CopyPartResult?.LastModified).toBeInstanceOf(Date);
      expect(copied.CopyPartResult?.ChecksumSHA256).toBe(sha256(expected));
      parts.push({
        PartNumber: input.PartNumber,
        ETag: copied.CopyPartResult?.ETag,
        ChecksumSHA256: copied.CopyPartResult?.ChecksumSHA256,
      });
    }
    await s3.send(new CompleteMultipartUploadCommand({ ...base, MultipartUpload: { Parts: parts } }));
    const joined = Buffer.concat([big, small]);
    expect((await bytesOf(s3, BUCKET, 'part/joined.bin')).equals(joined)).toBe(true);

    // A copy of that multipart object is one part: its composite checksum becomes a whole-object one.
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'part/joined.bin', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumSHA256).toMatch(/-3$/);
    const whole = await s3.send(
      new CopyObjectCommand({ Bucket: BUCKET, Key: 'part/joined-copy.bin', CopySource: `${BUCKET}/part/joined.bin` }),
    );
    expect(whole.CopyObjectResult?.ETag).toBe(`"${md5(joined)}"`);
    expect(whole.CopyObjectResult?.ChecksumSHA256).toBe(sha256(joined));
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(joined) >>> 0);
    const recrc = await s3.send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'part/joined-crc.bin',
        CopySource: `${BUCKET}/part/joined.bin`,
        ChecksumAlgorithm: 'CRC32',
      }),
    );
    expect(recrc.CopyObjectResult?.ChecksumCRC32).toBe(crc.toString('base64'));
  });

  it('refuses ranges of another form or outside the source with 400 InvalidArgument', async () => {
    const s3 = sdk.client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'range/src.bin', Body: small }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'range/dst.bin' }));
    const base = {
      Bucket: BUCKET,
      Key: 'range/dst.bin',
      UploadId,
      PartNumber: 1,
      CopySource: `${BUCKET}/range/src.bin`,
    };
    for (const range of ['bytes=0-3000', 'bytes=10-5', 'bytes=0-', 'bytes=-10', '0-10', 'bytes=0-1,4-5']) {
      const refused = await failure(s3.send(new UploadPartCopyCommand({ ...base, CopySourceRange: range })));
      expect(refused, range).toMatchObject({ code: 'InvalidArgument', status: 400 });
    }
    const last = await s3.send(new UploadPartCopyCommand({ ...base, CopySourceRange: 'bytes=2999-2999' }));
    expect(last.CopyPartResult?.ETag).toBe(`"${md5(small.subarray(2999))}"`);
  });

  it('applies the copy-source conditions and knows missing uploads and sources', async () => {
    const s3 = sdk.client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'pc/src.bin', Body: small }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'pc/dst.bin' }));
    const base = { Bucket: BUCKET, Key: 'pc/dst.bin', UploadId, PartNumber: 1, CopySource: `${BUCKET}/pc/src.bin` };
    const mismatch = await failure(
      s3.send(new UploadPartCopyCommand({ ...base, CopySourceIfMatch: '"0123456789abcdef0123456789abcdef"' })),
    );
    expect(mismatch).toMatchObject({ code: 'PreconditionFailed', status: 412 });
    const matched = await s3.send(new UploadPartCopyCommand({ ...base, CopySourceIfMatch: `"${md5(small)}"` }));
    expect(matched.CopyPartResult?.ETag).toBe(`"${md5(small)}"`);
    expect(await failure(s3.send(new UploadPartCopyCommand({ ...base, UploadId: 'nope' })))).toMatchObject({
      code: 'NoSuchUpload',
      status: 404,
    });
    expect(
      await failure(s3.send(new UploadPartCopyCommand({ ...base, CopySource: `${BUCKET}/pc/missing` }))),
    ).toMatchObject({ code: 'NoSuchKey', status: 404 });
    expect(await failure(s3.send(new UploadPartCopyCommand({ ...base, PartNumber: 10_001 })))).toMatchObject({
      code: 'InvalidArgument',
    });
  });
});

describe('copies guarded against what storage hands back', () => {
  const inner = createInMemoryBlobStorage();
  let mode: 'honest' | 'torn' | 'huge' = 'honest';
  // Reads as storage could hand them back: bytes that are not the object's (torn), or a source over 5 GiB.
  const storage: BlobStorageBinding = {
    ...inner,
    async getByKey(tenantId, bucket, key, options) {
      const read = await inner.getByKey(tenantId, bucket, key, options);
      if (read.kind === 'err' || mode === 'honest') return read;
      await read.value.stream.cancel();
      if (mode === 'huge') return ok({ ...read.value, meta: { ...read.value.meta, size: 5 * 1024 ** 3 + 1 } });
      const bytes = new Uint8Array(read.value.meta.size);
      return ok({ meta: read.value.meta, stream: new Blob([bytes]).stream() });
    },
  };
  it('stores nothing from a torn read (500, retried by clients) and refuses a source over 5 GiB', async () => {
    const server = await startS3Server({ blobStorage: storage });
    try {
      const s3 = clientFor(server.endpoint);
      const copy = () =>
        failure(s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'g/dst', CopySource: `${BUCKET}/g/src` })));
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'g/src', Body: randomBytes(4000) }));
      mode = 'torn';
      expect(await copy()).toMatchObject({ code: 'InternalError', status: 500 });
      expect(await inner.headByKey(TENANT, BUCKET, 'g/dst')).toEqual({ kind: 'ok', value: null });
      mode = 'huge';
      const huge = await copy();
      expect(huge).toMatchObject({ code: 'InvalidRequest', status: 400 });
      expect(huge.message).toContain('larger than the maximum allowable size for a copy source: 5368709120');
    } finally {
      await server.close();
    }
  });
});
