// Issue 31 item 2: CompleteMultipartUpload's x-amz-checksum-<alg> is the object's checksum, compared with the
// composite of the parts' (`…-N`) or, for FULL_OBJECT uploads, with the CRC of the whole object combined from
// the parts' CRCs; never with the XML body. Through the AWS SDK v3, against every SDK binding.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  type ChecksumAlgorithm,
  type ChecksumType,
  type CompletedPart,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListPartsCommand,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { crc32b64, crc64b64 } from './checksum-helpers.js';
import { BUCKET, errorCode, rawS3 } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

const MiB = 1024 * 1024;

/** Two parts: the smallest allowed non-last part and a short last one. */
const twoParts = () => [randomBytes(5 * MiB), randomBytes(2345)];

/** Uploads `bodies` as parts (stream bodies go aws-chunked with a trailer), listing what Complete needs. */
async function uploadParts(
  s3: S3Client,
  key: string,
  UploadId: string | undefined,
  bodies: Buffer[],
  algorithm: ChecksumAlgorithm,
): Promise<CompletedPart[]> {
  const parts: CompletedPart[] = [];
  for (const [i, data] of bodies.entries()) {
    const stream = i % 2 === 1;
    const sent = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId,
        PartNumber: i + 1,
        Body: stream ? Readable.from([data]) : data,
        ...(stream ? { ContentLength: data.length } : {}),
        ChecksumAlgorithm: algorithm,
      }),
    );
    const { ETag, ChecksumCRC32, ChecksumCRC64NVME, ChecksumSHA256 } = sent;
    parts.push({ PartNumber: i + 1, ETag, ChecksumCRC32, ChecksumCRC64NVME, ChecksumSHA256 });
  }
  return parts;
}

async function create(s3: S3Client, key: string, algorithm?: ChecksumAlgorithm, type?: ChecksumType) {
  return s3.send(
    new CreateMultipartUploadCommand({
      Bucket: BUCKET,
      Key: key,
      ...(algorithm !== undefined ? { ChecksumAlgorithm: algorithm } : {}),
      ...(type !== undefined ? { ChecksumType: type } : {}),
    }),
  );
}

const compositeCrc32 = (bodies: Buffer[]) =>
  `${crc32b64(Buffer.concat(bodies.map((body) => Buffer.from(crc32b64(body), 'base64'))))}-${bodies.length}`;

describe.each(SDK_BINDINGS)('multipart object checksums against the %s binding', (kind) => {
  const sdk = useSdkServer(kind);

  it('COMPOSITE CRC32: Complete checks the …-N composite (with or without -N) and answers its type', async () => {
    const s3 = sdk.client();
    for (const withCount of [true, false]) {
      const key = `composite-${withCount}.bin`;
      const created = await create(s3, key, 'CRC32');
      expect([created.ChecksumAlgorithm, created.ChecksumType]).toEqual(['CRC32', 'COMPOSITE']);
      const bodies = twoParts();
      const parts = await uploadParts(s3, key, created.UploadId, bodies, 'CRC32');
      const listed = await s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: created.UploadId }));
      expect([listed.ChecksumAlgorithm, listed.ChecksumType]).toEqual(['CRC32', 'COMPOSITE']);
      const composite = compositeCrc32(bodies);
      const done = await s3.send(
        new CompleteMultipartUploadCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: created.UploadId,
          MultipartUpload: { Parts: parts },
          // The object's checksum, not one of the XML body the SDK sends with it.
          ChecksumCRC32: withCount ? composite : composite.replace(/-\d+$/, ''),
        }),
      );
      expect([done.ChecksumCRC32, done.ChecksumType]).toEqual([composite, 'COMPOSITE']);
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
      expect([head.ChecksumCRC32, head.ChecksumType]).toEqual([composite, 'COMPOSITE']);
    }
  });

  it.each([
    ['CRC32', crc32b64],
    ['CRC64NVME', crc64b64],
  ] as const)('FULL_OBJECT %s: Complete checks the whole-object CRC, kept without -N', async (algorithm, crcOf) => {
    const s3 = sdk.client();
    const key = `full-${algorithm}.bin`;
    const created = await create(s3, key, algorithm, 'FULL_OBJECT');
    expect([created.ChecksumAlgorithm, created.ChecksumType]).toEqual([algorithm, 'FULL_OBJECT']);
    const bodies = [randomBytes(5 * MiB), randomBytes(5 * MiB + 17), randomBytes(999)];
    const parts = await uploadParts(s3, key, created.UploadId, bodies, algorithm);
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: key }));
    expect(uploads.Uploads?.map((u) => [u.ChecksumAlgorithm, u.ChecksumType])).toEqual([[algorithm, 'FULL_OBJECT']]);
    const whole = await crcOf(Buffer.concat(bodies));
    const field = algorithm === 'CRC32' ? 'ChecksumCRC32' : 'ChecksumCRC64NVME';
    const complete = new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: key,
      UploadId: created.UploadId,
      MultipartUpload: { Parts: parts },
      ChecksumType: 'FULL_OBJECT',
      [field]: whole,
    });
    const done = await s3.send(complete);
    expect([done[field], done.ChecksumType]).toEqual([whole, 'FULL_OBJECT']);
    // A retried Complete answers the same.
    const again = await s3.send(complete);
    expect([again[field], again.ChecksumType, again.ETag]).toEqual([whole, 'FULL_OBJECT', done.ETag]);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
    expect([head[field], head.ChecksumType]).toEqual([whole, 'FULL_OBJECT']);
    // A full-object value the SDK can check against the bytes it reads back.
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat(bodies))).toBe(true);
  });

  it('a wrong object checksum on Complete is BadDigest and leaves the upload open', async () => {
    const s3 = sdk.client();
    const cases: Array<[string, ChecksumAlgorithm, ChecksumType | undefined]> = [
      ['wrong-composite.bin', 'CRC32', undefined],
      ['wrong-full.bin', 'CRC32', 'FULL_OBJECT'],
      ['wrong-nvme.bin', 'CRC64NVME', undefined],
    ];
    for (const [key, algorithm, type] of cases) {
      const created = await create(s3, key, algorithm, type);
      const bodies = twoParts();
      const parts = await uploadParts(s3, key, created.UploadId, bodies, algorithm);
      const complete = (value: string) =>
        s3.send(
          new CompleteMultipartUploadCommand({
            Bucket: BUCKET,
            Key: key,
            UploadId: created.UploadId,
            MultipartUpload: { Parts: parts },
            ...(algorithm === 'CRC32' ? { ChecksumCRC32: value } : { ChecksumCRC64NVME: value }),
          }),
        );
      const wrong = algorithm === 'CRC32' ? crc32b64(Buffer.from('x')) : await crc64b64(Buffer.from('x'));
      await expect(complete(wrong)).rejects.toMatchObject({ name: 'BadDigest' });
      await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 404 },
      });
      const right =
        type === undefined && algorithm === 'CRC32'
          ? compositeCrc32(bodies)
          : algorithm === 'CRC32'
            ? crc32b64(Buffer.concat(bodies))
            : await crc64b64(Buffer.concat(bodies));
      // The composite's part count must be the upload's when it is sent.
      if (type === undefined && algorithm === 'CRC32') {
        await expect(complete(right.replace(/-2$/, '-3'))).rejects.toMatchObject({ name: 'BadDigest' });
      }
      expect((await complete(right)).$metadata.httpStatusCode).toBe(200);
    }
  });

  it('refuses FULL_OBJECT with SHA1/SHA256, COMPOSITE with CRC64NVME, an unknown type or a type alone', async () => {
    const path = `/s3/${BUCKET}/refused.bin`;
    const createRaw = (headers: Record<string, string>) =>
      rawS3(sdk.server, { method: 'POST', path, query: 'uploads=', headers, sign: Object.keys(headers) });
    const refused: Array<Record<string, string>> = [
      { 'x-amz-checksum-algorithm': 'SHA256', 'x-amz-checksum-type': 'FULL_OBJECT' },
      { 'x-amz-checksum-algorithm': 'SHA1', 'x-amz-checksum-type': 'FULL_OBJECT' },
      { 'x-amz-checksum-algorithm': 'CRC64NVME', 'x-amz-checksum-type': 'COMPOSITE' },
      { 'x-amz-checksum-algorithm': 'CRC32', 'x-amz-checksum-type': 'WHOLE' },
      { 'x-amz-checksum-type': 'FULL_OBJECT' },
      { 'x-amz-checksum-algorithm': 'MD4' },
    ];
    for (const headers of refused) {
      const res = await createRaw(headers);
      expect({ headers, status: res.status, code: errorCode(res.body) }).toEqual({
        headers,
        status: 400,
        code: 'InvalidRequest',
      });
    }
    const sha = await createRaw({ 'x-amz-checksum-algorithm': 'SHA256' });
    expect([sha.status, sha.headers.get('x-amz-checksum-type')]).toEqual([200, 'COMPOSITE']);
  });

  it('an upload created without an algorithm, with CRC64NVME parts, gets their FULL_OBJECT CRC64NVME', async () => {
    // What pyarrow's AWS SDK for C++ does: a plain CreateMultipartUpload, then CRC64NVME trailers on each part.
    const s3 = sdk.client();
    const key = 'unnamed-nvme.bin';
    const created = await create(s3, key);
    expect(created.ChecksumType).toBeUndefined();
    const bodies = twoParts();
    const parts = await uploadParts(s3, key, created.UploadId, bodies, 'CRC64NVME');
    const whole = await crc64b64(Buffer.concat(bodies));
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: created.UploadId,
        MultipartUpload: { Parts: parts },
        ChecksumCRC64NVME: whole,
      }),
    );
    expect([done.ChecksumCRC64NVME, done.ChecksumType]).toEqual([whole, 'FULL_OBJECT']);
  });

  it('an object checksum of another algorithm than the upload’s, or one the parts cannot prove, is refused', async () => {
    const s3 = sdk.client();
    const created = await create(s3, 'mixed.bin', 'CRC32');
    const bodies = twoParts();
    const parts = await uploadParts(s3, 'mixed.bin', created.UploadId, bodies, 'CRC32');
    const other = s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'mixed.bin',
        UploadId: created.UploadId,
        MultipartUpload: { Parts: parts },
        ChecksumSHA256: Buffer.alloc(32).toString('base64'),
      }),
    );
    await expect(other).rejects.toMatchObject({ name: 'InvalidRequest' });

    const plain = await create(s3, 'unproven.bin');
    const plainParts = await uploadParts(s3, 'unproven.bin', plain.UploadId, bodies, 'CRC32');
    const unproven = s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'unproven.bin',
        UploadId: plain.UploadId,
        MultipartUpload: { Parts: plainParts },
        ChecksumSHA256: Buffer.alloc(32).toString('base64'),
      }),
    );
    await expect(unproven).rejects.toMatchObject({ name: 'InvalidRequest' });
  });
});
