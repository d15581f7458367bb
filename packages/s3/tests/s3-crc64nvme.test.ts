// Issue 31 item 1: CRC64NVME flexible checksums, as an x-amz-checksum-crc64nvme header and as an aws-chunked
// trailer (signed and unsigned), verified and answered back with checksum mode, through the AWS SDK v3.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { crc32b64, crc64b64, putWithTrailer, recordHeaders } from './checksum-helpers.js';
import { BUCKET, errorCode, rawS3 } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

describe.each(SDK_BINDINGS)('CRC64NVME against the %s binding', (kind) => {
  const sdk = useSdkServer(kind);
  const path = (key: string) => `/s3/${BUCKET}/${key}`;

  it('PutObject with the checksum as a header: verified, answered with FULL_OBJECT, returned in checksum mode', async () => {
    const s3 = sdk.client();
    const sent = recordHeaders(s3);
    const data = randomBytes(100_000);
    const put = await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'nvme-header.bin', Body: data, ChecksumAlgorithm: 'CRC64NVME' }),
    );
    expect(sent.at(-1)?.['x-amz-checksum-crc64nvme']).toBe(await crc64b64(data));
    expect(sent.at(-1)?.['x-amz-trailer']).toBeUndefined();
    expect(put.ChecksumCRC64NVME).toBe(await crc64b64(data));
    expect(put.ChecksumType).toBe('FULL_OBJECT');

    const plain = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'nvme-header.bin' }));
    expect(plain.ChecksumCRC64NVME).toBeUndefined();
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'nvme-header.bin', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ChecksumCRC64NVME).toBe(await crc64b64(data));
    expect(head.ChecksumType).toBe('FULL_OBJECT');
    // The SDK checks the answered CRC64NVME against the bytes it reads.
    const got = await s3.send(
      new GetObjectCommand({ Bucket: BUCKET, Key: 'nvme-header.bin', ChecksumMode: 'ENABLED' }),
    );
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(data)).toBe(true);
    expect(got.ChecksumCRC64NVME).toBe(await crc64b64(data));
  });

  it('PutObject with a stream body: the SDK sends the checksum as an unsigned aws-chunked trailer', async () => {
    const s3 = sdk.client();
    const sent = recordHeaders(s3);
    const data = randomBytes(300_000);
    const put = await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'nvme-trailer.bin',
        Body: Readable.from([data.subarray(0, 123_456), data.subarray(123_456)]),
        ContentLength: data.length,
        ChecksumAlgorithm: 'CRC64NVME',
      }),
    );
    expect(sent.at(-1)?.['x-amz-trailer']).toBe('x-amz-checksum-crc64nvme');
    expect(sent.at(-1)?.['x-amz-content-sha256']).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
    expect(put.ChecksumCRC64NVME).toBe(await crc64b64(data));
    const head = await s3.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'nvme-trailer.bin', ChecksumMode: 'ENABLED' }),
    );
    expect([head.ChecksumCRC64NVME, head.ChecksumType, head.ContentLength]).toEqual([
      await crc64b64(data),
      'FULL_OBJECT',
      data.length,
    ]);
  });

  it('UploadPart with CRC64NVME as a header and as a trailer keeps both part checksums', async () => {
    const s3 = sdk.client();
    const sent = recordHeaders(s3);
    const key = 'nvme-parts.bin';
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key, ChecksumAlgorithm: 'CRC64NVME' }),
    );
    const first = randomBytes(5 * 1024 * 1024);
    const second = randomBytes(4321);
    const one = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId,
        PartNumber: 1,
        Body: first,
        ChecksumAlgorithm: 'CRC64NVME',
      }),
    );
    expect(sent.at(-1)?.['x-amz-checksum-crc64nvme']).toBeDefined();
    const two = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId,
        PartNumber: 2,
        Body: Readable.from([second]),
        ContentLength: second.length,
        ChecksumAlgorithm: 'CRC64NVME',
      }),
    );
    expect(sent.at(-1)?.['x-amz-trailer']).toBe('x-amz-checksum-crc64nvme');
    expect([one.ChecksumCRC64NVME, two.ChecksumCRC64NVME]).toEqual([await crc64b64(first), await crc64b64(second)]);
    const listed = await s3.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId }));
    expect(listed.Parts?.map((part) => part.ChecksumCRC64NVME)).toEqual([
      await crc64b64(first),
      await crc64b64(second),
    ]);
    expect([listed.ChecksumAlgorithm, listed.ChecksumType]).toEqual(['CRC64NVME', 'FULL_OBJECT']);
  });

  it('a wrong crc64nvme header is BadDigest and a malformed one InvalidRequest; nothing is stored', async () => {
    const put = (key: string, value: string) =>
      rawS3(sdk.server, {
        method: 'PUT',
        path: path(key),
        body: 'abc',
        headers: { 'x-amz-checksum-crc64nvme': value },
        sign: ['x-amz-checksum-crc64nvme'],
      });
    const wrong = await put('nvme-wrong', await crc64b64(Buffer.from('abd')));
    expect([wrong.status, errorCode(wrong.body)]).toEqual([400, 'BadDigest']);
    // A CRC32-sized value is no CRC64NVME.
    const short = await put('nvme-wrong', crc32b64(Buffer.from('abc')));
    expect([short.status, errorCode(short.body)]).toEqual([400, 'InvalidRequest']);
    expect((await rawS3(sdk.server, { method: 'HEAD', path: path('nvme-wrong') })).status).toBe(404);
    const right = await put('nvme-right', await crc64b64(Buffer.from('abc')));
    expect(right.status).toBe(200);
    expect(right.headers.get('x-amz-checksum-crc64nvme')).toBe(await crc64b64(Buffer.from('abc')));
  });

  it('x-amz-sdk-checksum-algorithm CRC64NVME without its value is InvalidRequest', async () => {
    const res = await rawS3(sdk.server, {
      method: 'PUT',
      path: path('nvme-named-only'),
      body: 'abc',
      headers: { 'x-amz-sdk-checksum-algorithm': 'CRC64NVME' },
      sign: ['x-amz-sdk-checksum-algorithm'],
    });
    expect([res.status, errorCode(res.body)]).toEqual([400, 'InvalidRequest']);
  });

  describe.each(['STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER', 'STREAMING-UNSIGNED-PAYLOAD-TRAILER'] as const)(
    '%s with an x-amz-checksum-crc64nvme trailer',
    (mode) => {
      const trailerName = 'x-amz-checksum-crc64nvme';

      it('stores the bytes and keeps the checksum; a wrong one is BadDigest, a malformed one InvalidRequest', async () => {
        const data = randomBytes(150_000);
        const key = `nvme-${mode}`;
        const good = await putWithTrailer(sdk.server, key, {
          mode,
          data,
          trailerName,
          trailerValue: await crc64b64(data),
        });
        expect(good.status).toBe(200);
        expect(good.headers['x-amz-checksum-crc64nvme']).toBe(await crc64b64(data));
        const head = await rawS3(sdk.server, {
          method: 'HEAD',
          path: path(key),
          headers: { 'x-amz-checksum-mode': 'ENABLED' },
        });
        expect(head.headers.get('x-amz-checksum-crc64nvme')).toBe(await crc64b64(data));
        expect(head.headers.get('x-amz-checksum-type')).toBe('FULL_OBJECT');

        const other = randomBytes(1000);
        const wrong = await putWithTrailer(sdk.server, key, {
          mode,
          data: other,
          trailerName,
          trailerValue: await crc64b64(data),
        });
        expect([wrong.status, errorCode(wrong.body)]).toEqual([400, 'BadDigest']);
        const malformed = await putWithTrailer(sdk.server, key, {
          mode,
          data: other,
          trailerName,
          trailerValue: crc32b64(other),
        });
        expect([malformed.status, errorCode(malformed.body)]).toEqual([400, 'InvalidRequest']);
        // Neither replaced the stored object.
        const still = await rawS3(sdk.server, { method: 'GET', path: path(key) });
        expect(still.body.equals(data)).toBe(true);
      });
    },
  );
});
