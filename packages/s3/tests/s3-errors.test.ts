import { createHash } from 'node:crypto';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { err } from '@kindgi/protocol';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BUCKET,
  EXPIRED_KEY_ID,
  errorCode,
  KEY_ID,
  OTHER_KEY_ID,
  type RawRequest,
  type RawResponse,
  rawS3,
  type S3TestServer,
  SECRET,
  startS3Server,
} from './s3-harness.js';

let server: S3TestServer;
let broken: S3TestServer;
let busy: S3TestServer;

beforeAll(async () => {
  server = await startS3Server();
  const failing = createInMemoryBlobStorage();
  failing.listByPrefix = async () => err({ code: 'blob-storage-error', message: 'disk on fire' });
  broken = await startS3Server({ blobStorage: failing });
  // Refuses the key `busy` before reading a byte of its body, as a spent upload budget does.
  const crowded = createInMemoryBlobStorage();
  const putByKey = crowded.putByKey.bind(crowded);
  crowded.putByKey = async (tenantId, bucket, key, input) =>
    key === 'busy'
      ? err({ code: 'storage-busy', message: 'every upload buffer is in use', retryAfterSeconds: 1 })
      : putByKey(tenantId, bucket, key, input);
  busy = await startS3Server({ blobStorage: crowded });
});
afterAll(async () => {
  await server.close();
  await broken.close();
  await busy.close();
});

const md5b64 = (data: string) => createHash('md5').update(data).digest('base64');

function expectError(response: RawResponse, status: number, code: string): void {
  expect({ status: response.status, code: errorCode(response.body) }).toEqual({ status, code });
  expect(response.headers.get('content-type')).toBe('application/xml');
  const requestId = response.headers.get('x-amz-request-id');
  expect(requestId).toMatch(/^[0-9A-F]{16}$/);
  expect(response.body.toString()).toContain(`<RequestId>${requestId}</RequestId>`);
}

const put = (key: string, body: string, extra: Partial<RawRequest> = {}) =>
  rawS3(server, {
    method: 'PUT',
    path: `/s3/${BUCKET}/${key}`,
    body,
    headers: { 'content-length': String(Buffer.byteLength(body)) },
    sign: ['content-length'],
    ...extra,
  });

async function initiate(key: string): Promise<string> {
  const started = await rawS3(server, { method: 'POST', path: `/s3/${BUCKET}/${key}`, query: 'uploads=' });
  return /<UploadId>([^<]+)<\/UploadId>/.exec(started.body.toString())![1]!;
}

describe('every error row of the seed table', () => {
  it('400 InvalidRequest: a request that names no bucket', async () => {
    expectError(await rawS3(server, { method: 'PUT', path: '/s3/' }), 400, 'InvalidRequest');
  });

  it('400 MalformedXML: a CompleteMultipartUpload body that is not the document', async () => {
    const uploadId = await initiate('xml');
    for (const body of [
      '<CompleteMultipartUpload><Part>',
      '<CompleteMultipartUpload></CompleteMultipartUpload>',
      'junk',
    ]) {
      const res = await rawS3(server, {
        method: 'POST',
        path: `/s3/${BUCKET}/xml`,
        query: `uploadId=${uploadId}`,
        body,
      });
      expectError(res, 400, 'MalformedXML');
    }
  });

  it('400 InvalidArgument: a part number out of bounds, a bad max-keys', async () => {
    const uploadId = await initiate('args');
    for (const partNumber of ['0', '10001', 'x']) {
      const res = await put('args', 'x', { query: `partNumber=${partNumber}&uploadId=${uploadId}` });
      expectError(res, 400, 'InvalidArgument');
    }
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'list-type=2&max-keys=-1' }),
      400,
      'InvalidArgument',
    );
  });

  it('416 InvalidRange: a range past the end, with Content-Range bytes */size', async () => {
    await put('ten', '0123456789');
    for (const range of ['bytes=10-', 'bytes=-0', 'bytes=0-1,3-4']) {
      const res = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/ten`, headers: { range } });
      expectError(res, 416, 'InvalidRange');
      expect(res.headers.get('content-range')).toBe('bytes */10');
    }
  });

  it('400 BadDigest: a Content-MD5 that does not match, and the old object survives', async () => {
    await put('digest', 'first');
    const res = await put('digest', 'second', { headers: { 'content-length': '6', 'content-md5': md5b64('other') } });
    expectError(res, 400, 'BadDigest');
    const got = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/digest` });
    expect(got.body.toString()).toBe('first');
  });

  it('400 XAmzContentSHA256Mismatch: a payload hash that does not match the body', async () => {
    const payloadHash = createHash('sha256').update('something else').digest('hex');
    expectError(await put('sha', 'body', { payloadHash }), 400, 'XAmzContentSHA256Mismatch');
    expect((await rawS3(server, { method: 'HEAD', path: `/s3/${BUCKET}/sha` })).status).toBe(404);
  });

  it('400 InvalidPart: a part ETag that does not match', async () => {
    const uploadId = await initiate('part');
    await put('part', 'data', { query: `partNumber=1&uploadId=${uploadId}` });
    const body =
      '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"00000000000000000000000000000000"</ETag></Part></CompleteMultipartUpload>';
    const res = await rawS3(server, {
      method: 'POST',
      path: `/s3/${BUCKET}/part`,
      query: `uploadId=${uploadId}`,
      body,
    });
    expectError(res, 400, 'InvalidPart');
  });

  it('403 AccessDenied: an expired credential, another bucket, no credentials at all', async () => {
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, keyId: EXPIRED_KEY_ID }),
      403,
      'AccessDenied',
    );
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, keyId: OTHER_KEY_ID }),
      403,
      'AccessDenied',
    );
    const bare = await fetch(`${server.endpoint}/${BUCKET}/x`);
    expect(bare.status).toBe(403);
    expect(errorCode(await bare.text())).toBe('AccessDenied');
  });

  it('403 InvalidAccessKeyId: an unknown access key', async () => {
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, keyId: 'AKIAUNKNOWN' }),
      403,
      'InvalidAccessKeyId',
    );
  });

  it('403 SignatureDoesNotMatch: the wrong secret', async () => {
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, secret: 'wrong' }),
      403,
      'SignatureDoesNotMatch',
    );
  });

  it('403 RequestTimeTooSkewed: signed 16 minutes ago or ahead', async () => {
    for (const minutes of [-16, 16]) {
      const date = new Date(Date.now() + minutes * 60_000);
      expectError(await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, date }), 403, 'RequestTimeTooSkewed');
    }
  });

  it('403 InvalidRequest: a malformed SigV4 Authorization header', async () => {
    for (const authorization of [
      'AWS4-HMAC-SHA256 Credential=x',
      'Bearer abc',
      `AWS4-HMAC-SHA256 Credential=${KEY_ID}/x, SignedHeaders=host, Signature=00`,
    ]) {
      const res = await fetch(`${server.endpoint}/${BUCKET}/x`, {
        headers: { authorization, 'x-amz-date': '20260101T000000Z' },
      });
      expect(res.status).toBe(403);
      expect(errorCode(await res.text())).toBe('InvalidRequest');
    }
  });

  it('400 AuthorizationQueryParametersError: presigned parameters out of range or missing', async () => {
    const s3 = new S3Client({
      endpoint: server.endpoint,
      forcePathStyle: true,
      region: 'us-east-1',
      credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
    });
    const url = await getSignedUrl(s3, new PutObjectCommand({ Bucket: BUCKET, Key: 'p' }), { expiresIn: 60 });
    s3.destroy();
    for (const broken of [
      url.replace(/X-Amz-Expires=60/, 'X-Amz-Expires=604801'),
      url.replace(/X-Amz-Expires=60/, 'X-Amz-Expires=0'),
      url.replace(/&X-Amz-Signature=[0-9a-f]+/, ''),
    ]) {
      const res = await fetch(broken, { method: 'PUT', body: 'x' });
      expect(res.status).toBe(400);
      expect(errorCode(await res.text())).toBe('AuthorizationQueryParametersError');
    }
  });

  it('404 NoSuchKey and 404 NoSuchUpload', async () => {
    expectError(await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/missing` }), 404, 'NoSuchKey');
    expectError(await put('k', 'x', { query: 'partNumber=1&uploadId=nope' }), 404, 'NoSuchUpload');
    expectError(
      await rawS3(server, { method: 'DELETE', path: `/s3/${BUCKET}/k`, query: 'uploadId=nope' }),
      404,
      'NoSuchUpload',
    );
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/k`, query: 'uploadId=nope' }),
      404,
      'NoSuchUpload',
    );
  });

  it('501 NotImplemented: subresources and operations we do not serve', async () => {
    expectError(await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/x`, query: 'acl=' }), 501, 'NotImplemented');
    expectError(
      await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'uploads=&delimiter=%2F' }),
      501,
      'NotImplemented',
    );
  });

  it('503 SlowDown: storage refused the body before reading it; the client goes on', async () => {
    const client = new S3Client({
      endpoint: busy.endpoint,
      region: 'us-east-1',
      forcePathStyle: true,
      maxAttempts: 1,
      credentials: { accessKeyId: KEY_ID, secretAccessKey: SECRET },
      requestChecksumCalculation: 'WHEN_REQUIRED',
    });
    try {
      // The body is read and dropped before the answer, so the client can go on (on the same connection).
      const refused = client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'busy', Body: Buffer.alloc(8 << 20) }));
      await expect(refused).rejects.toMatchObject({ name: 'SlowDown', $metadata: { httpStatusCode: 503 } });
      await client.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'fine', Body: 'ok' }));
      const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'fine' }));
      expect(await got.Body!.transformToString()).toBe('ok');
    } finally {
      client.destroy();
    }
  });

  it('500 InternalError: the backing store fails', async () => {
    expectError(
      await rawS3(broken, { method: 'GET', path: `/s3/${BUCKET}`, query: 'list-type=2' }),
      500,
      'InternalError',
    );
  });
});

describe('more S3 error semantics', () => {
  it('400 InvalidDigest for a Content-MD5 that is not one', async () => {
    expectError(
      await put('md5', 'x', { headers: { 'content-length': '1', 'content-md5': 'abc' } }),
      400,
      'InvalidDigest',
    );
  });

  it('412 PreconditionFailed for PUT If-None-Match: * on an existing key; 304 / 412 on GET', async () => {
    expect((await put('cond', 'v1', { headers: { 'content-length': '2', 'if-none-match': '*' } })).status).toBe(200);
    expectError(
      await put('cond', 'v2', { headers: { 'content-length': '2', 'if-none-match': '*' } }),
      412,
      'PreconditionFailed',
    );
    const etag = (await rawS3(server, { method: 'HEAD', path: `/s3/${BUCKET}/cond` })).headers.get('etag')!;
    const notModified = await rawS3(server, {
      method: 'GET',
      path: `/s3/${BUCKET}/cond`,
      headers: { 'if-none-match': etag },
    });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    const failed = await rawS3(server, {
      method: 'GET',
      path: `/s3/${BUCKET}/cond`,
      headers: { 'if-match': '"nope"' },
    });
    expectError(failed, 412, 'PreconditionFailed');
    const wins = await rawS3(server, {
      method: 'GET',
      path: `/s3/${BUCKET}/cond`,
      headers: { 'if-match': etag, 'if-unmodified-since': 'Thu, 01 Jan 1970 00:00:00 GMT' },
    });
    expect(wins.status).toBe(200);
  });

  it('DeleteObjects deletes listed keys (missing ones too) and refuses a malformed document', async () => {
    await put('del/a', 'a');
    await put('del/b', 'b');
    const body =
      '<Delete><Object><Key>del/a</Key></Object><Object><Key>del/b</Key></Object><Object><Key>del/none</Key></Object></Delete>';
    const res = await rawS3(server, { method: 'POST', path: `/s3/${BUCKET}`, query: 'delete=', body });
    expect(res.status).toBe(200);
    for (const key of ['del/a', 'del/b', 'del/none'])
      expect(res.body.toString()).toContain(`<Deleted><Key>${key}</Key></Deleted>`);
    expect((await rawS3(server, { method: 'HEAD', path: `/s3/${BUCKET}/del/a` })).status).toBe(404);
    const bad = await rawS3(server, { method: 'POST', path: `/s3/${BUCKET}`, query: 'delete=', body: '<Delete>' });
    expectError(bad, 400, 'MalformedXML');
  });

  it('400 InvalidRequest for an algorithm without its checksum, or a trailer together with a checksum header', async () => {
    const lonely = await put('alg', 'x', {
      headers: { 'content-length': '1', 'x-amz-sdk-checksum-algorithm': 'CRC32' },
      sign: ['content-length', 'x-amz-sdk-checksum-algorithm'],
    });
    expectError(lonely, 400, 'InvalidRequest');
    const both = await put('alg', 'x', {
      payloadHash: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      headers: { 'content-length': '1', 'x-amz-trailer': 'x-amz-checksum-crc32', 'x-amz-checksum-crc32': 'AAAAAA==' },
      sign: ['content-length'],
    });
    expectError(both, 400, 'InvalidRequest');
  });

  it('400 KeyTooLongError for a key over 1024 bytes', async () => {
    expectError(await put('k'.repeat(1025), 'x'), 400, 'KeyTooLongError');
  });

  it('400 EntityTooSmall and InvalidPartOrder on Complete', async () => {
    const uploadId = await initiate('small');
    const e1 = (await put('small', 'one', { query: `partNumber=1&uploadId=${uploadId}` })).headers.get('etag');
    const e2 = (await put('small', 'two', { query: `partNumber=2&uploadId=${uploadId}` })).headers.get('etag');
    const xml = (parts: Array<[number, string | null]>) =>
      `<CompleteMultipartUpload>${parts.map(([n, e]) => `<Part><ETag>${e}</ETag><PartNumber>${n}</PartNumber></Part>`).join('')}</CompleteMultipartUpload>`;
    const complete = (body: string) =>
      rawS3(server, { method: 'POST', path: `/s3/${BUCKET}/small`, query: `uploadId=${uploadId}`, body });
    expectError(
      await complete(
        xml([
          [2, e2],
          [1, e1],
        ]),
      ),
      400,
      'InvalidPartOrder',
    );
    expectError(
      await complete(
        xml([
          [1, e1],
          [2, e2],
        ]),
      ),
      400,
      'EntityTooSmall',
    );
  });
});
