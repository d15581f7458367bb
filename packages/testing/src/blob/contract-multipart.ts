import { createHash } from 'node:crypto';
import { MIN_MULTIPART_PART_BYTES } from '@kindgi/bindings';
import { expect, it } from 'vitest';
import {
  type CurrentStorage,
  failingStream,
  md5,
  pattern,
  readAll,
  sha256,
  unwrap,
  unwrapErr,
  webStream,
} from './contract-helpers.js';

const T = 'tenant-a';
const MiB5 = MIN_MULTIPART_PART_BYTES;

function expectedEtag(parts: Buffer[]): string {
  const hash = createHash('md5');
  for (const part of parts) hash.update(createHash('md5').update(part).digest());
  return `${hash.digest('hex')}-${parts.length}`;
}

/** Multipart uploads: part rules, ETags, abort, listParts. */
export function multipartContract(storage: CurrentStorage): void {
  const start = async (key = 'big.bin') =>
    unwrap(
      await storage().initiateMultipartUpload(T, 'b', key, {
        contentType: 'application/x-big',
        tags: { t: '1' },
        metadata: { Origin: 'test' },
        cacheControl: 'max-age=60',
      }),
    ).uploadId;

  it('completes parts into one object with ETag md5(concat(part md5s))-N', async () => {
    const uploadId = await start();
    const parts = [pattern(MiB5, 1), pattern(MiB5 + 17, 2), pattern(12_345, 3)];
    const etags: string[] = [];
    for (const [i, bytes] of parts.entries()) {
      const part = unwrap(
        await storage().uploadPart(T, 'b', 'big.bin', uploadId, i + 1, { bytes: webStream(bytes, 65_536) }),
      );
      expect(part).toEqual({ etag: md5(bytes), size: bytes.length });
      etags.push(part.etag);
    }
    const listed = unwrap(await storage().listParts(T, 'b', 'big.bin', uploadId));
    expect(listed.contentType).toBe('application/x-big');
    expect(listed.parts.map(({ partNumber, etag, size }) => ({ partNumber, etag, size }))).toEqual(
      parts.map((bytes, i) => ({ partNumber: i + 1, etag: md5(bytes), size: bytes.length })),
    );
    expect(unwrap(await storage().headByKey(T, 'b', 'big.bin'))).toBeNull();
    const meta = unwrap(
      await storage().completeMultipartUpload(
        T,
        'b',
        'big.bin',
        uploadId,
        etags.map((etag, i) => ({ partNumber: i + 1, etag: i === 0 ? `"${etag.toUpperCase()}"` : etag })),
      ),
    );
    const whole = Buffer.concat(parts);
    expect(meta).toMatchObject({
      bucket: 'b',
      key: 'big.bin',
      name: 'big.bin',
      size: whole.length,
      hash: sha256(whole),
      etag: expectedEtag(parts),
      contentType: 'application/x-big',
      tags: { t: '1' },
      metadata: { origin: 'test' },
      cacheControl: 'max-age=60',
    });
    const read = unwrap(await storage().getByKey(T, 'b', 'big.bin', { range: { start: MiB5 - 5, end: MiB5 + 4 } }));
    expect((await readAll(read.stream)).equals(whole.subarray(MiB5 - 5, MiB5 + 5))).toBe(true);
    expect(sha256(await readAll(unwrap(await storage().get(T, meta.blobId)).stream))).toBe(sha256(whole));
    expect(unwrapErr(await storage().listParts(T, 'b', 'big.bin', uploadId)).code).toBe('upload-not-found');
  });

  it('a single small part is a valid upload; re-uploading a part replaces it', async () => {
    unwrap(await storage().putByKey(T, 'b', 'small', { name: 'old', contentType: 'a/b', bytes: Buffer.from('old') }));
    const uploadId = await start('small');
    unwrap(await storage().uploadPart(T, 'b', 'small', uploadId, 1, { bytes: Buffer.from('first try') }));
    const part = unwrap(await storage().uploadPart(T, 'b', 'small', uploadId, 1, { bytes: Buffer.from('second') }));
    expect(unwrap(await storage().listParts(T, 'b', 'small', uploadId)).parts).toHaveLength(1);
    const meta = unwrap(
      await storage().completeMultipartUpload(T, 'b', 'small', uploadId, [{ partNumber: 1, etag: part.etag }]),
    );
    expect(meta.etag).toBe(expectedEtag([Buffer.from('second')]));
    expect((await readAll(unwrap(await storage().getByKey(T, 'b', 'small')).stream)).toString()).toBe('second');
    expect(unwrap(await storage().list(T, {})).data).toHaveLength(1);
  });

  it('refuses parts out of order, unknown or mismatched parts, and small non-last parts', async () => {
    const uploadId = await start();
    const small = unwrap(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 1, { bytes: pattern(1000) }));
    const big = unwrap(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 2, { bytes: pattern(MiB5) }));
    const last = unwrap(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 3, { bytes: pattern(10) }));
    const complete = (parts: { partNumber: number; etag: string }[]) =>
      storage().completeMultipartUpload(T, 'b', 'big.bin', uploadId, parts);
    const p = (partNumber: number, etag: string) => ({ partNumber, etag });
    expect(unwrapErr(await complete([p(2, big.etag), p(1, small.etag)])).code).toBe('invalid-part-order');
    expect(unwrapErr(await complete([p(2, big.etag), p(2, big.etag)])).code).toBe('invalid-part-order');
    expect(unwrapErr(await complete([p(2, small.etag), p(3, last.etag)]))).toMatchObject({
      code: 'invalid-part',
      partNumber: 2,
    });
    expect(unwrapErr(await complete([p(2, big.etag), p(4, last.etag)]))).toMatchObject({
      code: 'invalid-part',
      partNumber: 4,
    });
    expect(unwrapErr(await complete([]))).toMatchObject({ code: 'invalid-part' });
    expect(unwrapErr(await complete([p(1, small.etag), p(2, big.etag)]))).toMatchObject({
      code: 'entity-too-small',
      partNumber: 1,
    });
    expect(unwrap(await storage().listParts(T, 'b', 'big.bin', uploadId)).parts).toHaveLength(3);
    const meta = unwrap(await complete([p(2, big.etag), p(3, last.etag)]));
    expect(meta.size).toBe(MiB5 + 10);
  });

  it('checks part numbers, part digests and part bodies', async () => {
    const uploadId = await start();
    for (const partNumber of [0, 10_001, 1.5]) {
      const refused = unwrapErr(
        await storage().uploadPart(T, 'b', 'big.bin', uploadId, partNumber, { bytes: Buffer.from('x') }),
      );
      expect(refused.code).toBe('invalid-part');
    }
    const bad = unwrapErr(
      await storage().uploadPart(T, 'b', 'big.bin', uploadId, 1, {
        bytes: Buffer.from('x'),
        expectedMd5: '0'.repeat(32),
      }),
    );
    expect(bad).toMatchObject({ code: 'blob-hash-mismatch', algorithm: 'md5' });
    const size = unwrapErr(
      await storage().uploadPart(T, 'b', 'big.bin', uploadId, 1, { bytes: Buffer.from('x'), size: 2 }),
    );
    expect(size.code).toBe('blob-size-mismatch');
    const reason = new Error('part stream broke');
    const failed = unwrapErr(
      await storage().uploadPart(T, 'b', 'big.bin', uploadId, 1, { bytes: failingStream(pattern(100), reason) }),
    );
    expect(failed).toMatchObject({ code: 'blob-body-failed', cause: reason });
    expect(unwrap(await storage().listParts(T, 'b', 'big.bin', uploadId)).parts).toEqual([]);
    const ok = unwrap(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 10_000, { bytes: Buffer.from('x') }));
    expect(ok.etag).toBe(md5(Buffer.from('x')));
  });

  it('abort discards the upload; unknown uploads and wrong addresses are upload-not-found', async () => {
    const uploadId = await start();
    unwrap(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 1, { bytes: Buffer.from('x') }));
    expect(unwrapErr(await storage().listParts(T, 'b', 'other-key', uploadId)).code).toBe('upload-not-found');
    expect(
      unwrapErr(await storage().uploadPart(T, 'other', 'big.bin', uploadId, 1, { bytes: Buffer.from('y') })).code,
    ).toBe('upload-not-found');
    expect(unwrap(await storage().abortMultipartUpload(T, 'b', 'big.bin', uploadId))).toEqual({ aborted: true });
    expect(unwrapErr(await storage().listParts(T, 'b', 'big.bin', uploadId))).toMatchObject({
      code: 'upload-not-found',
      uploadId,
    });
    expect(
      unwrapErr(await storage().uploadPart(T, 'b', 'big.bin', uploadId, 2, { bytes: Buffer.from('y') })).code,
    ).toBe('upload-not-found');
    const etag = md5(Buffer.from('x'));
    const completed = await storage().completeMultipartUpload(T, 'b', 'big.bin', uploadId, [{ partNumber: 1, etag }]);
    expect(unwrapErr(completed).code).toBe('upload-not-found');
    expect(unwrapErr(await storage().abortMultipartUpload(T, 'b', 'big.bin', uploadId)).code).toBe('upload-not-found');
    expect(unwrapErr(await storage().abortMultipartUpload(T, 'b', 'big.bin', 'no-such-upload')).code).toBe(
      'upload-not-found',
    );
    expect(unwrap(await storage().headByKey(T, 'b', 'big.bin'))).toBeNull();
  });
}
