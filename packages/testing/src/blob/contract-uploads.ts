import { expect, it } from 'vitest';
import { type CurrentStorage, md5, unwrap, unwrapErr } from './contract-helpers.js';

const T = 'tenant-a';

/** Upload listing, expiry, retried completion, part checksums and prototype-named metadata. */
export function uploadsContract(storage: CurrentStorage): void {
  const start = async (key: string, tenant = T) =>
    unwrap(await storage().initiateMultipartUpload(tenant, 'b', key, { contentType: 'x/y' })).uploadId;
  const onePart = async (key: string, uploadId: string, body = 'part body') => {
    const part = unwrap(await storage().uploadPart(T, 'b', key, uploadId, 1, { bytes: Buffer.from(body) }));
    return [{ partNumber: 1, etag: part.etag }];
  };

  it('a repeated identical Complete answers the same object; a different part list is upload-not-found', async () => {
    const uploadId = await start('done.bin');
    const parts = await onePart('done.bin', uploadId);
    const first = unwrap(await storage().completeMultipartUpload(T, 'b', 'done.bin', uploadId, parts));
    const again = unwrap(
      await storage().completeMultipartUpload(T, 'b', 'done.bin', uploadId, [
        { partNumber: 1, etag: `"${parts[0]!.etag.toUpperCase()}"` },
      ]),
    );
    expect(again).toEqual(first);
    const other = [{ partNumber: 1, etag: md5(Buffer.from('else')) }];
    expect(unwrapErr(await storage().completeMultipartUpload(T, 'b', 'done.bin', uploadId, other)).code).toBe(
      'upload-not-found',
    );
    expect(
      unwrapErr(await storage().uploadPart(T, 'b', 'done.bin', uploadId, 2, { bytes: Buffer.from('x') })).code,
    ).toBe('upload-not-found');
    expect(unwrapErr(await storage().listParts(T, 'b', 'done.bin', uploadId)).code).toBe('upload-not-found');
    expect(unwrapErr(await storage().abortMultipartUpload(T, 'b', 'done.bin', uploadId)).code).toBe('upload-not-found');
    expect(unwrapErr(await storage().completeMultipartUpload(T, 'b', 'other.bin', uploadId, parts)).code).toBe(
      'upload-not-found',
    );
  });

  it('lists open uploads by key then uploadId, with prefix, markers and maxUploads; per tenant and bucket', async () => {
    const ids: Record<string, string[]> = { 'a/1': [], 'a/2': [], b: [] };
    for (const key of ['a/2', 'b', 'a/1', 'a/2']) ids[key]!.push(await start(key));
    const done = await start('a/3');
    unwrap(await storage().completeMultipartUpload(T, 'b', 'a/3', done, await onePart('a/3', done)));
    const aborted = await start('a/4');
    unwrap(await storage().abortMultipartUpload(T, 'b', 'a/4', aborted));
    await start('a/1', 'tenant-b');
    unwrap(await storage().initiateMultipartUpload(T, 'other-bucket', 'a/1', { contentType: 'x/y' }));

    const expected = [
      ...ids['a/1']!.map((uploadId) => ['a/1', uploadId]),
      ...[...ids['a/2']!].sort().map((uploadId) => ['a/2', uploadId]),
      ...ids.b!.map((uploadId) => ['b', uploadId]),
    ];
    const all = unwrap(await storage().listMultipartUploads(T, 'b', {}));
    expect(all.isTruncated).toBe(false);
    expect(all.uploads.map((u) => [u.key, u.uploadId])).toEqual(expected);
    expect(all.uploads.every((u) => !Number.isNaN(Date.parse(u.initiated)))).toBe(true);

    const prefixed = unwrap(await storage().listMultipartUploads(T, 'b', { prefix: 'a/' }));
    expect(prefixed.uploads.map((u) => u.key)).toEqual(['a/1', 'a/2', 'a/2']);

    const page = unwrap(await storage().listMultipartUploads(T, 'b', { maxUploads: 2 }));
    expect(page.isTruncated).toBe(true);
    expect(page.uploads.map((u) => [u.key, u.uploadId])).toEqual(expected.slice(0, 2));
    const last = page.uploads.at(-1)!;
    const next = unwrap(
      await storage().listMultipartUploads(T, 'b', { keyMarker: last.key, uploadIdMarker: last.uploadId }),
    );
    expect(next.uploads.map((u) => [u.key, u.uploadId])).toEqual(expected.slice(2));
    const afterKey = unwrap(await storage().listMultipartUploads(T, 'b', { keyMarker: 'a/2' }));
    expect(afterKey.uploads.map((u) => u.key)).toEqual(['b']);
    expect(unwrap(await storage().listMultipartUploads(T, 'b', { maxUploads: 0 })).uploads).toEqual([]);
  });

  it('expires uploads initiated before a time, and forgets completed answers older than it', async () => {
    const open = await start('old.bin');
    await onePart('old.bin', open);
    const done = await start('kept.bin');
    const parts = await onePart('kept.bin', done);
    unwrap(await storage().completeMultipartUpload(T, 'b', 'kept.bin', done, parts));
    expect(unwrap(await storage().expireMultipartUploads(new Date(Date.now() - 60_000))).expired).toBe(0);
    expect(unwrap(await storage().listParts(T, 'b', 'old.bin', open)).parts).toHaveLength(1);

    expect(unwrap(await storage().expireMultipartUploads(new Date(Date.now() + 60_000))).expired).toBe(2);
    expect(unwrapErr(await storage().listParts(T, 'b', 'old.bin', open)).code).toBe('upload-not-found');
    expect(unwrap(await storage().listMultipartUploads(T, 'b', {})).uploads).toEqual([]);
    expect(unwrapErr(await storage().completeMultipartUpload(T, 'b', 'kept.bin', done, parts)).code).toBe(
      'upload-not-found',
    );
    // The completed object itself stays.
    expect(unwrap(await storage().headByKey(T, 'b', 'kept.bin'))?.etag).toMatch(/-1$/);
  });

  it('keeps part checksums, the upload checksum algorithm, and the checksums given at completion', async () => {
    const uploadId = unwrap(
      await storage().initiateMultipartUpload(T, 'b', 'sums.bin', { contentType: 'x/y', checksumAlgorithm: 'crc32' }),
    ).uploadId;
    const checksums = { crc32: 'AAAAAA==' };
    const part = unwrap(
      await storage().uploadPart(T, 'b', 'sums.bin', uploadId, 1, { bytes: Buffer.from('p'), checksums }),
    );
    const listed = unwrap(await storage().listParts(T, 'b', 'sums.bin', uploadId));
    expect(listed.checksumAlgorithm).toBe('crc32');
    expect(listed.parts[0]?.checksums).toEqual(checksums);
    const uploads = unwrap(await storage().listMultipartUploads(T, 'b', {})).uploads;
    expect(uploads.map((u) => u.checksumAlgorithm)).toEqual(['crc32']);
    const meta = unwrap(
      await storage().completeMultipartUpload(T, 'b', 'sums.bin', uploadId, [{ partNumber: 1, etag: part.etag }], {
        checksums: { crc32: 'AAAAAA==-1' },
      }),
    );
    expect(meta.checksums).toEqual({ crc32: 'AAAAAA==-1' });
    expect(unwrap(await storage().headByKey(T, 'b', 'sums.bin'))?.checksums).toEqual({ crc32: 'AAAAAA==-1' });
  });

  it('keeps the checksum type an upload was created with, and CRC64NVME checksums', async () => {
    const init = { contentType: 'x/y', checksumAlgorithm: 'crc64nvme', checksumType: 'FULL_OBJECT' } as const;
    const uploadId = unwrap(await storage().initiateMultipartUpload(T, 'full', 'nvme.bin', init)).uploadId;
    const checksums = { crc64nvme: 'AAAAAAAAAAA=' };
    const part = unwrap(
      await storage().uploadPart(T, 'full', 'nvme.bin', uploadId, 1, { bytes: Buffer.from('p'), checksums }),
    );
    const listed = unwrap(await storage().listParts(T, 'full', 'nvme.bin', uploadId));
    expect(listed).toMatchObject({ checksumAlgorithm: 'crc64nvme', checksumType: 'FULL_OBJECT' });
    expect(listed.parts[0]?.checksums).toEqual(checksums);
    const uploads = unwrap(await storage().listMultipartUploads(T, 'full', {})).uploads;
    expect(uploads.map((u) => [u.checksumAlgorithm, u.checksumType])).toEqual([['crc64nvme', 'FULL_OBJECT']]);
    const plain = unwrap(await storage().initiateMultipartUpload(T, 'full', 'plain.bin', { contentType: 'x/y' }));
    const plainListed = unwrap(await storage().listParts(T, 'full', 'plain.bin', plain.uploadId));
    expect('checksumType' in plainListed).toBe(false);
    const completed = { checksums: { crc64nvme: 'AQIDBAUGBwg=' } };
    const parts = [{ partNumber: 1, etag: part.etag }];
    unwrap(await storage().completeMultipartUpload(T, 'full', 'nvme.bin', uploadId, parts, completed));
    expect(unwrap(await storage().headByKey(T, 'full', 'nvme.bin'))?.checksums).toEqual(completed.checksums);
  });

  it('stores metadata and tags named __proto__ like any other name', async () => {
    const metadata = Object.fromEntries([
      ['__proto__', 'meta'],
      ['constructor', 'c'],
    ]) as Record<string, string>;
    const tags = Object.fromEntries([['__proto__', '1']]) as Record<string, string>;
    unwrap(
      await storage().putByKey(T, 'b', 'proto', {
        name: 'p',
        contentType: 'x/y',
        bytes: Buffer.from('x'),
        metadata,
        tags,
      }),
    );
    const meta = unwrap(await storage().headByKey(T, 'b', 'proto'))!;
    expect(Object.entries(meta.metadata).sort()).toEqual([
      ['__proto__', 'meta'],
      ['constructor', 'c'],
    ]);
    expect(Object.entries(meta.tags)).toEqual([['__proto__', '1']]);
    const uploadId = unwrap(
      await storage().initiateMultipartUpload(T, 'b', 'proto-mp', { contentType: 'x/y', metadata, tags }),
    ).uploadId;
    const parts = await onePart('proto-mp', uploadId);
    const done = unwrap(await storage().completeMultipartUpload(T, 'b', 'proto-mp', uploadId, parts));
    expect(Object.keys(done.metadata).sort()).toEqual(['__proto__', 'constructor']);
    expect(Object.keys(done.tags)).toEqual(['__proto__']);
  });
}
