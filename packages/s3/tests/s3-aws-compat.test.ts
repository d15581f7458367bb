// Issue 16 (and 13.8–13.12): where the surface now answers as AWS S3 does, through the AWS SDK v3 with its
// default checksums, or raw signed requests where the SDK cannot send the case.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import {
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { BlobStorageBinding } from '@kindgi/bindings';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { BUCKET, errorCode, rawS3, startS3Server } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

const MiB = 1024 * 1024;
const crc32b64 = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data) >>> 0);
  return out.toString('base64');
};

describe.each(SDK_BINDINGS)('against the %s binding', (kind) => {
  const sdk = useSdkServer(kind, { regions: ['us-east-1', 'eu-central-1'] });
  const client = (region = 'us-east-1') => sdk.client({ region });
  const path = (key: string) => `/s3/${BUCKET}/${key}`;

  it('16.1: GET/HEAD return exactly the stored x-amz-meta-*; the blob id comes as x-kindgi-blob-id', async () => {
    const s3 = client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'meta.txt', Body: 'x', Metadata: { colour: 'blue' } }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'meta.txt' }));
    expect(head.Metadata).toEqual({ colour: 'blue' });
    const raw = await rawS3(sdk.server, { method: 'HEAD', path: path('meta.txt') });
    expect([...raw.headers.keys()].filter((name) => name.startsWith('x-amz-meta-'))).toEqual(['x-amz-meta-colour']);
    expect(raw.headers.get('x-kindgi-blob-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('16.3: a repeated CompleteMultipartUpload of a completed upload answers the same 200 result', async () => {
    const s3 = client();
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'retry.bin' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: 'retry.bin', UploadId, PartNumber: 1, Body: randomBytes(1000) }),
    );
    const complete = new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: 'retry.bin',
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag }] },
    });
    const first = await s3.send(complete);
    const again = await s3.send(complete);
    expect(again.ETag).toBe(first.ETag);
    expect(again.$metadata.httpStatusCode).toBe(200);
    const other = new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: 'retry.bin',
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"00000000000000000000000000000000"' }] },
    });
    await expect(s3.send(other)).rejects.toMatchObject({ name: 'NoSuchUpload' });
  });

  it('16.4: non-ASCII metadata (UTF-8 bytes on the wire) verifies, and comes back RFC 2047 encoded', async () => {
    const s3 = client();
    // Node's client refuses characters above U+00FF in a header, so the SDK can send only these.
    const value = 'é ünï çà';
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'utf8-meta', Body: 'x', Metadata: { title: value } }));
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'utf8-meta' }));
    expect(head.Metadata?.title).toBe(`=?UTF-8?B?${Buffer.from(value).toString('base64')}?=`);
  });

  it('16.5: Content-Encoding keeps every token as sent except aws-chunked', async () => {
    const s3 = client();
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'enc-plain', Body: 'x', ContentEncoding: 'deflate, gzip' }),
    );
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'enc-plain' }))).ContentEncoding).toBe(
      'deflate, gzip',
    );
    // A stream body goes aws-chunked with default checksums: the SDK appends `,aws-chunked` to the header.
    const data = randomBytes(20_000);
    await s3.send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'enc-chunked',
        Body: Readable.from([data]),
        ContentLength: data.length,
        ContentEncoding: 'deflate, gzip',
      }),
    );
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'enc-chunked' }))).ContentEncoding).toBe(
      'deflate, gzip',
    );
  });

  it('16.6: checksums only with checksum mode; CRC32 multipart answers the composite …-N checksum', async () => {
    const s3 = client();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'sum.txt', Body: 'hello' }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'sum.txt' }))).ChecksumCRC32).toBeUndefined();
    const withMode = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'sum.txt', ChecksumMode: 'ENABLED' }));
    expect(withMode.ChecksumCRC32).toBe(crc32b64(Buffer.from('hello')));

    const key = 'composite.bin';
    const created = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key, ChecksumAlgorithm: 'CRC32' }),
    );
    expect(created.ChecksumAlgorithm).toBe('CRC32');
    const bodies = [randomBytes(5 * MiB), randomBytes(1234)];
    const parts = [];
    for (const [i, Body] of bodies.entries()) {
      const sent = await s3.send(
        new UploadPartCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: created.UploadId,
          PartNumber: i + 1,
          Body,
          ChecksumAlgorithm: 'CRC32',
        }),
      );
      expect(sent.ChecksumCRC32).toBe(crc32b64(Body));
      parts.push({ PartNumber: i + 1, ETag: sent.ETag, ChecksumCRC32: sent.ChecksumCRC32 });
    }
    const composite = `${crc32b64(Buffer.concat(bodies.map((b) => Buffer.from(crc32b64(b), 'base64'))))}-2`;
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: created.UploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    expect(done.ChecksumCRC32).toBe(composite);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32).toBe(composite);
  });

  it('16.6: a wrong part checksum at Complete is InvalidPart; wrong or malformed body checksums as S3', async () => {
    const s3 = client();
    const { UploadId } = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'bad-sum.bin', ChecksumAlgorithm: 'CRC32' }),
    );
    const part = await s3.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: 'bad-sum.bin', UploadId, PartNumber: 1, Body: 'abc' }),
    );
    const wrong = new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: 'bad-sum.bin',
      UploadId,
      MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag, ChecksumCRC32: crc32b64(Buffer.from('x')) }] },
    });
    await expect(s3.send(wrong)).rejects.toMatchObject({ name: 'InvalidPart' });
    const put = (value: string) =>
      rawS3(sdk.server, {
        method: 'PUT',
        path: path('bad-sum.txt'),
        body: 'abc',
        headers: { 'x-amz-checksum-crc32': value },
        sign: ['x-amz-checksum-crc32'],
      });
    expect(errorCode((await put(crc32b64(Buffer.from('abd')))).body)).toBe('BadDigest');
    expect(errorCode((await put('not base64!')).body)).toBe('InvalidRequest');
  });

  it('16.7: the signing time may come from Date (ISO 8601 basic) when x-amz-date is absent', async () => {
    const put = await rawS3(sdk.server, { method: 'PUT', path: path('dated'), body: 'd', timeInDate: true });
    expect(put.status).toBe(200);
    const got = await rawS3(sdk.server, { method: 'GET', path: path('dated'), timeInDate: true });
    expect(got.body.toString()).toBe('d');
  });

  it('16.8: an empty continuation-token is absent; a part number listed twice keeps its last entry', async () => {
    await rawS3(sdk.server, { method: 'PUT', path: path('lenient/a'), body: 'a' });
    const listed = await rawS3(sdk.server, {
      method: 'GET',
      path: `/s3/${BUCKET}`,
      query: 'continuation-token=&list-type=2&prefix=lenient%2F',
    });
    expect(listed.status).toBe(200);
    expect(listed.body.toString()).toContain('<Key>lenient/a</Key>');

    const s3 = client();
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'dup.bin' }));
    const part = await s3.send(
      new UploadPartCommand({ Bucket: BUCKET, Key: 'dup.bin', UploadId, PartNumber: 1, Body: 'dup' }),
    );
    const xml =
      '<CompleteMultipartUpload>' +
      '<Part><PartNumber>1</PartNumber><ETag>"00000000000000000000000000000000"</ETag></Part>' +
      `<Part><PartNumber>1</PartNumber><ETag>${part.ETag}</ETag></Part>` +
      '</CompleteMultipartUpload>';
    const done = await rawS3(sdk.server, {
      method: 'POST',
      path: path('dup.bin'),
      query: `uploadId=${UploadId}`,
      body: xml,
    });
    expect(done.status).toBe(200);
    expect(done.body.toString()).toContain('-1&quot;</ETag>');
  });

  it('16.9: list-type=1 answers ListObjects v1', async () => {
    await rawS3(sdk.server, { method: 'PUT', path: path('v1/a'), body: 'a' });
    const listed = await rawS3(sdk.server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'list-type=1&prefix=v1%2F' });
    expect(listed.status).toBe(200);
    expect(listed.body.toString()).toContain('<Marker></Marker>');
    expect(listed.body.toString()).toContain('<Key>v1/a</Key>');
  });

  it('13.8: only service s3 and the configured regions; others are AuthorizationHeaderMalformed', async () => {
    await client('eu-central-1').send(new PutObjectCommand({ Bucket: BUCKET, Key: 'region-ok', Body: 'x' }));
    await expect(
      client('zz-fake-9').send(new PutObjectCommand({ Bucket: BUCKET, Key: 'region-bad', Body: 'x' })),
    ).rejects.toMatchObject({ name: 'AuthorizationHeaderMalformed', $metadata: { httpStatusCode: 400 } });
    const wrongRegion = await rawS3(sdk.server, { method: 'GET', path: path('region-ok'), region: 'zz-fake-9' });
    expect(errorCode(wrongRegion.body)).toBe('AuthorizationHeaderMalformed');
    expect(wrongRegion.body.toString()).toContain('expecting &apos;us-east-1&apos;');
    // As AWS does: the region to sign for is its own element too (s3cmd re-signs with it).
    expect(wrongRegion.body.toString()).toContain('<Region>us-east-1</Region>');
    const wrongService = await rawS3(sdk.server, { method: 'GET', path: path('region-ok'), service: 'lambda' });
    expect(errorCode(wrongService.body)).toBe('AuthorizationHeaderMalformed');
    expect(wrongService.body.toString()).toContain('This endpoint belongs to &quot;s3&quot;');
    const presigned = await getSignedUrl(
      client('zz-fake-9'),
      new PutObjectCommand({ Bucket: BUCKET, Key: 'region-bad' }),
      { expiresIn: 60 },
    );
    const answer = await fetch(presigned, { method: 'PUT', body: 'x' });
    expect(errorCode(await answer.text())).toBe('AuthorizationQueryParametersError');
  });

  it('13.9: listings stay well-formed XML; keys XML 1.0 cannot carry need encoding-type=url', async () => {
    await rawS3(sdk.server, { method: 'PUT', path: path('xml/cr%0Dkey'), body: 'x' });
    const withCr = await rawS3(sdk.server, {
      method: 'GET',
      path: `/s3/${BUCKET}`,
      query: 'list-type=2&prefix=xml%2F',
    });
    expect(XMLValidator.validate(withCr.body.toString())).toBe(true);
    expect(withCr.body.toString()).toContain('<Key>xml/cr&#13;key</Key>');
    await rawS3(sdk.server, { method: 'PUT', path: path('xml/nul%00key'), body: 'x' });
    const refused = await rawS3(sdk.server, {
      method: 'GET',
      path: `/s3/${BUCKET}`,
      query: 'list-type=2&prefix=xml%2F',
    });
    expect({ status: refused.status, code: errorCode(refused.body) }).toEqual({ status: 400, code: 'InvalidArgument' });
    const encoded = await rawS3(sdk.server, {
      method: 'GET',
      path: `/s3/${BUCKET}`,
      query: 'encoding-type=url&list-type=2&prefix=xml%2F',
    });
    expect(XMLValidator.validate(encoded.body.toString())).toBe(true);
    expect(encoded.body.toString()).toContain('<Key>xml/nul%00key</Key>');
    // The SDK leaves url-encoded keys as they come; they decode to the stored keys.
    const listed = await client().send(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'xml/', EncodingType: 'url' }),
    );
    expect(listed.Contents?.map((c) => decodeURIComponent(c.Key ?? ''))).toEqual(['xml/cr\rkey', 'xml/nul\u0000key']);
  });

  it('13.10: metadata and tags named __proto__ are stored; duplicate tag keys are InvalidTag', async () => {
    const put = await rawS3(sdk.server, {
      method: 'PUT',
      path: path('proto'),
      body: 'x',
      headers: { 'x-amz-meta-__proto__': 'kept', 'x-amz-tagging': '__proto__=1' },
      sign: ['x-amz-meta-__proto__', 'x-amz-tagging'],
    });
    expect(put.status).toBe(200);
    const head = await rawS3(sdk.server, { method: 'HEAD', path: path('proto') });
    expect(head.headers.get('x-amz-meta-__proto__')).toBe('kept');
    expect(head.headers.get('x-amz-tagging-count')).toBe('1');
    const duplicate = await rawS3(sdk.server, {
      method: 'PUT',
      path: path('dup-tags'),
      body: 'x',
      headers: { 'x-amz-tagging': 'a=1&a=2' },
      sign: ['x-amz-tagging'],
    });
    expect({ status: duplicate.status, code: errorCode(duplicate.body) }).toEqual({ status: 400, code: 'InvalidTag' });
    expect((await rawS3(sdk.server, { method: 'HEAD', path: path('dup-tags') })).status).toBe(404);
  });

  it('13.11: ListMultipartUploads pages with key and upload-id markers', async () => {
    const s3 = client();
    const ids: string[] = [];
    for (const key of ['mpu/a', 'mpu/b', 'mpu/b']) {
      ids.push((await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }))).UploadId!);
    }
    const first = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'mpu/', MaxUploads: 2 }));
    expect(first.IsTruncated).toBe(true);
    expect(first.Uploads?.map((u) => u.Key)).toEqual(['mpu/a', 'mpu/b']);
    const rest = await s3.send(
      new ListMultipartUploadsCommand({
        Bucket: BUCKET,
        Prefix: 'mpu/',
        KeyMarker: first.NextKeyMarker,
        UploadIdMarker: first.NextUploadIdMarker,
      }),
    );
    expect(rest.IsTruncated).toBe(false);
    const listed = [...(first.Uploads ?? []), ...(rest.Uploads ?? [])].map((u) => u.UploadId).sort();
    expect(listed).toEqual([...ids].sort());
  });

  it('13.12: a Range in another unit or ending before its start is ignored; past the end is 416', async () => {
    await rawS3(sdk.server, { method: 'PUT', path: path('ranged'), body: '0123456789' });
    for (const range of ['items=0-1', 'bytes=3-2']) {
      const got = await rawS3(sdk.server, { method: 'GET', path: path('ranged'), headers: { range } });
      expect({ range, status: got.status, body: got.body.toString() }).toEqual({
        range,
        status: 200,
        body: '0123456789',
      });
    }
    const past = await rawS3(sdk.server, { method: 'GET', path: path('ranged'), headers: { range: 'bytes=10-' } });
    expect({ status: past.status, code: errorCode(past.body) }).toEqual({ status: 416, code: 'InvalidRange' });
  });
});

describe('13.1: a GetObject body that fails mid-way', () => {
  it('cuts off only that response; the next request is served', async () => {
    const inner = createInMemoryBlobStorage();
    const failing: BlobStorageBinding = {
      ...inner,
      getByKey: async (tenantId, bucket, key, options) => {
        const read = await inner.getByKey(tenantId, bucket, key, options);
        if (read.kind === 'err' || key !== 'breaks') return read;
        let sent = false;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (sent) return controller.error(new Error('disk read failed'));
            sent = true;
            controller.enqueue(new Uint8Array(64 * 1024));
          },
        });
        return { kind: 'ok', value: { meta: read.value.meta, stream } };
      },
    };
    const server = await startS3Server({ blobStorage: failing });
    try {
      const body = randomBytes(1024 * 1024);
      expect((await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}/breaks`, body })).status).toBe(200);
      const broken = rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/breaks` });
      // The status and length went out before the failure: the client sees the body end short.
      await expect(broken).rejects.toThrow();
      expect((await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}/fine`, body: 'ok' })).status).toBe(200);
      expect((await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/fine` })).body.toString()).toBe('ok');
    } finally {
      await server.close();
    }
  });
});
