import { createHash, randomBytes } from 'node:crypto';
import {
  CopyObjectCommand,
  type CopyObjectCommandInput,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  type S3Client,
  type S3ServiceException,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { BUCKET, errorCode, rawS3 } from './s3-harness.js';
import { SDK_BINDINGS, useSdkServer } from './s3-sdk-harness.js';

const md5 = (data: Buffer) => createHash('md5').update(data).digest('hex');
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('base64');
/** A key as a copy source names it: each path segment percent-encoded. */
const encoded = (key: string) => key.split('/').map(encodeURIComponent).join('/');

async function bytesOf(s3: S3Client, key: string): Promise<Buffer> {
  const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
  return Buffer.from(await (got.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
}

/** The S3 error a request failed with. */
async function failure(sent: Promise<unknown>): Promise<{ code: string; status: number | undefined; message: string }> {
  try {
    await sent;
  } catch (thrown) {
    const error = thrown as S3ServiceException;
    return { code: error.name, status: error.$metadata?.httpStatusCode, message: error.message };
  }
  throw new Error('the request was expected to fail');
}

describe.each(SDK_BINDINGS)('CopyObject against the %s binding', (kind) => {
  const sdk = useSdkServer(kind);
  const client = sdk.client;
  const data = randomBytes(100_000);
  const hour = 3600_000;

  async function putSource(key: string, body: Buffer = data) {
    return client().send(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: key,
        Body: body,
        ContentType: 'application/x-source',
        ContentDisposition: 'attachment; filename="s.bin"',
        CacheControl: 'max-age=5',
        Metadata: { colour: 'blue', note: 'ünï' },
        Tagging: 'a=1&b=2',
        ChecksumAlgorithm: 'SHA256',
      }),
    );
  }

  const copy = (input: Omit<CopyObjectCommandInput, 'Bucket'>) =>
    client().send(new CopyObjectCommand({ Bucket: BUCKET, ...input }));

  it('COPY (the default) copies bytes, content headers, metadata, tags and a whole-object checksum', async () => {
    await putSource('src/a.bin');
    const copied = await copy({ Key: 'dst/a.bin', CopySource: `${BUCKET}/src/a.bin` });
    expect(copied.CopyObjectResult?.ETag).toBe(`"${md5(data)}"`);
    expect(copied.CopyObjectResult?.LastModified).toBeInstanceOf(Date);
    expect(copied.CopyObjectResult?.ChecksumSHA256).toBe(sha256(data));
    expect(copied.CopySourceVersionId).toBeUndefined();
    expect((await bytesOf(client(), 'dst/a.bin')).equals(data)).toBe(true);
    const head = await client().send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'dst/a.bin', ChecksumMode: 'ENABLED' }),
    );
    expect(head.ContentType).toBe('application/x-source');
    expect(head.ContentDisposition).toBe('attachment; filename="s.bin"');
    expect(head.CacheControl).toBe('max-age=5');
    expect(head.Metadata).toEqual({ colour: 'blue', note: '=?UTF-8?B?w7xuw68=?=' });
    expect(head.TagCount).toBe(2);
    expect(head.ChecksumSHA256).toBe(sha256(data));
  });

  it('REPLACE takes content headers and metadata from the request; tags follow the tagging directive', async () => {
    await putSource('src/b.bin');
    await copy({
      Key: 'dst/b.bin',
      CopySource: `/${BUCKET}/src/b.bin`,
      MetadataDirective: 'REPLACE',
      ContentType: 'text/plain',
      Metadata: { fresh: 'yes' },
    });
    const replaced = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'dst/b.bin' }));
    expect(replaced.ContentType).toBe('text/plain');
    expect(replaced.ContentDisposition).toBeUndefined();
    expect(replaced.Metadata).toEqual({ fresh: 'yes' });
    expect(replaced.TagCount).toBe(2);
    await copy({ Key: 'dst/b2.bin', CopySource: `${BUCKET}/src/b.bin`, TaggingDirective: 'REPLACE', Tagging: 'z=9' });
    const retagged = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'dst/b2.bin' }));
    expect(retagged.TagCount).toBe(1);
    expect(retagged.Metadata).toEqual({ colour: 'blue', note: '=?UTF-8?B?w7xuw68=?=' });
    await copy({ Key: 'dst/b3.bin', CopySource: `${BUCKET}/src/b.bin`, TaggingDirective: 'REPLACE' });
    expect(
      (await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'dst/b3.bin' }))).TagCount,
    ).toBeUndefined();
  });

  it('names keys with spaces, reserved characters and unicode percent-encoded, with ?versionId=null', async () => {
    const source = 'src/with space ünï 日本 a+b 100%.txt';
    const target = 'dst/copy of ünï 日本 a+b 100%.txt';
    await putSource(source);
    await copy({ Key: target, CopySource: `${BUCKET}/${encoded(source)}?versionId=null` });
    expect((await bytesOf(client(), target)).equals(data)).toBe(true);
    // The whole value encoded, separating slash included, names the same object.
    await copy({ Key: `${target}.2`, CopySource: encodeURIComponent(`${BUCKET}/${source}`) });
    expect((await bytesOf(client(), `${target}.2`)).equals(data)).toBe(true);
    // Raw UTF-8 (not percent-encoded) is read as the UTF-8 it is.
    const raw = await rawS3(sdk.server, {
      method: 'PUT',
      path: `/s3/${BUCKET}/dst/raw-utf8`,
      headers: { 'x-amz-copy-source': Buffer.from(`${BUCKET}/${source}`, 'utf8').toString('latin1') },
      sign: ['x-amz-copy-source'],
    });
    expect(raw.status).toBe(200);
    expect((await bytesOf(client(), 'dst/raw-utf8')).equals(data)).toBe(true);
    const versioned = await failure(copy({ Key: target, CopySource: `${BUCKET}/${encoded(source)}?versionId=v1` }));
    expect(versioned).toMatchObject({ code: 'InvalidArgument', status: 400 });
  });

  it("copies an object onto itself to change its metadata (rclone's mtime update)", async () => {
    await putSource('self/a.bin');
    const before = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'self/a.bin' }));
    await copy({
      Key: 'self/a.bin',
      CopySource: `${BUCKET}/self/a.bin`,
      MetadataDirective: 'REPLACE',
      ContentType: 'application/x-source',
      Metadata: { mtime: '1700000000.5' },
    });
    const after = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'self/a.bin' }));
    expect(after.Metadata).toEqual({ mtime: '1700000000.5' });
    expect(after.ETag).toBe(before.ETag);
    expect((await bytesOf(client(), 'self/a.bin')).equals(data)).toBe(true);
  });

  it('refuses a self-copy that changes nothing with 400 InvalidRequest', async () => {
    await putSource('self/b.bin');
    const refused = await failure(copy({ Key: 'self/b.bin', CopySource: `${BUCKET}/self/b.bin` }));
    expect(refused).toMatchObject({ code: 'InvalidRequest', status: 400 });
    expect(refused.message).toBe(
      "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.",
    );
    // A storage class or a new checksum algorithm is a change, as on AWS.
    await copy({ Key: 'self/b.bin', CopySource: `${BUCKET}/self/b.bin`, StorageClass: 'STANDARD' });
    const rehashed = await copy({ Key: 'self/b.bin', CopySource: `${BUCKET}/self/b.bin`, ChecksumAlgorithm: 'CRC32C' });
    expect(rehashed.CopyObjectResult?.ChecksumCRC32C).toMatch(/^[A-Za-z0-9+/]{6}==$/);
    expect(rehashed.CopyObjectResult?.ChecksumSHA256).toBeUndefined();
    const crc64 = await copy({ Key: 'self/b.bin', CopySource: `${BUCKET}/self/b.bin`, ChecksumAlgorithm: 'CRC64NVME' });
    expect(crc64.CopyObjectResult?.ChecksumCRC64NVME).toMatch(/^[A-Za-z0-9+/]{11}=$/);
    expect(crc64.CopyObjectResult?.ChecksumType).toBe('FULL_OBJECT');
  });

  it('honours x-amz-copy-source-if-* with the precedence AWS documents (412 otherwise)', async () => {
    const put = await putSource('cond/src.bin');
    const etag = put.ETag ?? '';
    const past = new Date(Date.now() - hour);
    const future = new Date(Date.now() + hour);
    const from = { Key: 'cond/dst.bin', CopySource: `${BUCKET}/cond/src.bin` };
    const cases: Array<[Partial<CopyObjectCommandInput>, boolean]> = [
      [{ CopySourceIfMatch: etag }, true],
      [{ CopySourceIfMatch: '"0123456789abcdef0123456789abcdef"' }, false],
      [{ CopySourceIfNoneMatch: '"0123456789abcdef0123456789abcdef"' }, true],
      [{ CopySourceIfNoneMatch: etag }, false],
      [{ CopySourceIfModifiedSince: past }, true],
      [{ CopySourceIfModifiedSince: future }, false],
      [{ CopySourceIfUnmodifiedSince: future }, true],
      [{ CopySourceIfUnmodifiedSince: past }, false],
      // If-Match holding overrides a failing If-Unmodified-Since; a failing If-None-Match is never overridden.
      [{ CopySourceIfMatch: etag, CopySourceIfUnmodifiedSince: past }, true],
      [{ CopySourceIfNoneMatch: etag, CopySourceIfModifiedSince: past }, false],
    ];
    for (const [conditions, proceeds] of cases) {
      const sent = copy({ ...from, ...conditions });
      if (proceeds) expect((await sent).CopyObjectResult?.ETag).toBe(etag);
      else expect(await failure(sent)).toMatchObject({ code: 'PreconditionFailed', status: 412 });
    }
  });

  it("honours the destination's If-None-Match: * and If-Match like PutObject", async () => {
    await putSource('cond/src2.bin');
    const from = { CopySource: `${BUCKET}/cond/src2.bin` };
    await copy({ ...from, Key: 'cond/new.bin', IfNoneMatch: '*' });
    expect(await failure(copy({ ...from, Key: 'cond/new.bin', IfNoneMatch: '*' }))).toMatchObject({
      code: 'PreconditionFailed',
      status: 412,
    });
    expect(
      await failure(copy({ ...from, Key: 'cond/new.bin', IfMatch: '"0123456789abcdef0123456789abcdef"' })),
    ).toMatchObject({ code: 'PreconditionFailed' });
    await copy({ ...from, Key: 'cond/new.bin', IfMatch: `"${md5(data)}"` });
  });

  it('answers NoSuchKey, AccessDenied and InvalidArgument for bad sources and directives', async () => {
    await putSource('bad/src.bin');
    expect(await failure(copy({ Key: 'bad/dst', CopySource: `${BUCKET}/bad/missing` }))).toMatchObject({
      code: 'NoSuchKey',
      status: 404,
    });
    expect(await failure(copy({ Key: 'bad/dst', CopySource: 'other-bucket/bad/src.bin' }))).toMatchObject({
      code: 'AccessDenied',
      status: 403,
    });
    for (const CopySource of [BUCKET, `${BUCKET}/`, `/${BUCKET}`]) {
      expect(await failure(copy({ Key: 'bad/dst', CopySource }))).toMatchObject({ code: 'InvalidArgument' });
    }
    const directive = await failure(
      copy({ Key: 'bad/dst', CopySource: `${BUCKET}/bad/src.bin`, MetadataDirective: 'MOVE' as 'COPY' }),
    );
    expect(directive).toMatchObject({ code: 'InvalidArgument', status: 400 });
    const tagging = await failure(
      copy({ Key: 'bad/dst', CopySource: `${BUCKET}/bad/src.bin`, TaggingDirective: 'KEEP' as 'COPY' }),
    );
    expect(tagging).toMatchObject({ code: 'InvalidArgument', status: 400 });
    const raw = await rawS3(sdk.server, {
      method: 'PUT',
      path: `/s3/${BUCKET}/bad/dst`,
      headers: { 'x-amz-copy-source': `${BUCKET}/bad/src.bin`, 'x-amz-checksum-algorithm': 'MD4' },
      sign: ['x-amz-checksum-algorithm', 'x-amz-copy-source'],
    });
    expect([raw.status, errorCode(raw.body)]).toEqual([400, 'InvalidRequest']);
  });

  it('leaves the copy intact when the source is overwritten or deleted afterwards', async () => {
    await putSource('life/src.bin');
    await copy({ Key: 'life/dst.bin', CopySource: `${BUCKET}/life/src.bin` });
    await putSource('life/src.bin', randomBytes(5000));
    expect((await bytesOf(client(), 'life/dst.bin')).equals(data)).toBe(true);
    await client().send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'life/src.bin' }));
    expect((await bytesOf(client(), 'life/dst.bin')).equals(data)).toBe(true);
    const head = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'life/dst.bin' }));
    expect(head.ETag).toBe(`"${md5(data)}"`);
  });
});
