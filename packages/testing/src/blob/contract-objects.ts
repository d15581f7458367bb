import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import {
  type CurrentStorage,
  failingStream,
  gatedBody,
  iterable,
  md5,
  pattern,
  readAll,
  sha256,
  unwrap,
  unwrapErr,
  webStream,
} from './contract-helpers.js';

const T = 'tenant-a';
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Storing and reading whole objects: body kinds, streaming, digests, visibility, failures. */
export function objectContract(storage: CurrentStorage): void {
  it('put stores the bytes under bucket artifacts, key = blobId, with sha256 and MD5 ETag', async () => {
    const bytes = pattern(10_000);
    const meta = unwrap(
      await storage().put(T, {
        name: 'report.pdf',
        contentType: 'application/pdf',
        bytes,
        size: bytes.length,
        tags: { kind: 'report' },
        metadata: { Author: 'Ada' },
        ownerRunId: 'run-1',
        projectId: 'p-1',
        createdBy: 'user:u1',
      }),
    );
    expect(meta).toMatchObject({
      tenantId: T,
      bucket: 'artifacts',
      key: meta.blobId,
      name: 'report.pdf',
      contentType: 'application/pdf',
      size: 10_000,
      hash: sha256(bytes),
      etag: md5(bytes),
      tags: { kind: 'report' },
      metadata: { author: 'Ada' },
      ownerRunId: 'run-1',
      projectId: 'p-1',
      createdBy: 'user:u1',
    });
    expect(meta.createdAt).toMatch(ISO_MS);
    const read = unwrap(await storage().get(T, meta.blobId));
    expect(read.meta).toEqual(meta);
    expect(sha256(await readAll(read.stream))).toBe(sha256(bytes));
    expect(unwrap(await storage().head(T, meta.blobId))).toEqual(meta);
    expect(unwrap(await storage().headByKey(T, 'artifacts', meta.blobId))).toEqual(meta);
    const byKey = unwrap(await storage().getByKey(T, 'artifacts', meta.blobId));
    expect((await readAll(byKey.stream)).equals(bytes)).toBe(true);
  });

  it('accepts web streams, async iterables and Node streams, chunk by chunk', async () => {
    const bytes = pattern(300_001, 7);
    const bodies = [webStream(bytes, 4096), iterable(bytes, 1000), Readable.from(iterable(bytes, 65_536))];
    for (const [i, body] of bodies.entries()) {
      const meta = unwrap(await storage().putByKey(T, 'b', `k${i}`, { name: 'x', contentType: 'a/b', bytes: body }));
      expect(meta.size).toBe(bytes.length);
      expect(meta.hash).toBe(sha256(bytes));
      expect(meta.etag).toBe(md5(bytes));
      expect((await readAll(unwrap(await storage().getByKey(T, 'b', `k${i}`)).stream)).equals(bytes)).toBe(true);
    }
  });

  it('stores an empty body', async () => {
    const meta = unwrap(
      await storage().putByKey(T, 'b', 'empty', { name: 'e', contentType: 'a/b', bytes: new Uint8Array(0) }),
    );
    expect(meta).toMatchObject({ size: 0, hash: sha256(Buffer.alloc(0)), etag: 'd41d8cd98f00b204e9800998ecf8427e' });
    expect((await readAll(unwrap(await storage().get(T, meta.blobId)).stream)).length).toBe(0);
  });

  it('keeps content headers and checksums', async () => {
    const headers = {
      contentDisposition: 'attachment; filename="a.txt"',
      contentEncoding: 'gzip',
      contentLanguage: 'fr',
      cacheControl: 'no-cache',
      expires: 'Wed, 21 Oct 2037 07:28:00 GMT',
    };
    const checksums = { sha256: Buffer.from(sha256(Buffer.from('hi')), 'hex').toString('base64') };
    const bytes = Buffer.from('hi');
    unwrap(
      await storage().putByKey(T, 'b', 'h', { name: 'h', contentType: 'text/plain', bytes, ...headers, checksums }),
    );
    expect(unwrap(await storage().headByKey(T, 'b', 'h'))).toMatchObject({ ...headers, checksums });
  });

  it('makes nothing visible until the body ended', async () => {
    unwrap(await storage().putByKey(T, 'b', 'k', { name: 'v1', contentType: 'a/b', bytes: Buffer.from('one') }));
    const gated = gatedBody(Buffer.from('two-'), Buffer.from('done'));
    const pending = storage().putByKey(T, 'b', 'k', { name: 'v2', contentType: 'a/b', bytes: gated.body });
    await gated.reached;
    expect(unwrap(await storage().headByKey(T, 'b', 'k'))?.name).toBe('v1');
    const listing = unwrap(await storage().listByPrefix(T, 'b', {}));
    expect(listing.contents.map((meta) => meta.name)).toEqual(['v1']);
    gated.release();
    const meta = unwrap(await pending);
    expect(meta.size).toBe(8);
    expect((await readAll(unwrap(await storage().getByKey(T, 'b', 'k')).stream)).toString()).toBe('two-done');
  });

  it('a body that errors mid-stream fails with blob-body-failed and its cause, storing nothing', async () => {
    unwrap(await storage().putByKey(T, 'b', 'k', { name: 'old', contentType: 'a/b', bytes: Buffer.from('old') }));
    const reason = new Error('client went away');
    const failed = unwrapErr(
      await storage().putByKey(T, 'b', 'k', {
        name: 'new',
        contentType: 'a/b',
        bytes: failingStream(pattern(70_000), reason),
      }),
    );
    expect(failed).toMatchObject({ code: 'blob-body-failed', cause: reason });
    const put = unwrapErr(
      await storage().put(T, { name: 'x', contentType: 'a/b', bytes: failingStream(Buffer.from('abc'), reason) }),
    );
    expect(put.code).toBe('blob-body-failed');
    const kept = unwrap(await storage().getByKey(T, 'b', 'k'));
    expect(kept.meta.name).toBe('old');
    expect((await readAll(kept.stream)).toString()).toBe('old');
    expect(unwrap(await storage().list(T, {})).data.map((meta) => meta.name)).toEqual(['old']);
  });

  it('refuses a body whose length differs from the declared size', async () => {
    const bytes = pattern(5000);
    const long = unwrapErr(await storage().putByKey(T, 'b', 'k', { name: 'n', contentType: 'a/b', bytes, size: 4999 }));
    expect(long).toMatchObject({ code: 'blob-size-mismatch', declared: 4999 });
    const short = unwrapErr(
      await storage().putByKey(T, 'b', 'k', { name: 'n', contentType: 'a/b', bytes: webStream(bytes), size: 5001 }),
    );
    expect(short).toMatchObject({ code: 'blob-size-mismatch', declared: 5001, actual: 5000 });
    expect(unwrap(await storage().headByKey(T, 'b', 'k'))).toBeNull();
    expect(unwrap(await storage().list(T, {})).data).toEqual([]);
  });

  it('checks expectedHash (sha256) and expectedMd5, case-insensitively', async () => {
    const bytes = pattern(2048, 3);
    const wrong = '0'.repeat(64);
    const sha = unwrapErr(await storage().put(T, { name: 'n', contentType: 'a/b', bytes, expectedHash: wrong }));
    expect(sha).toMatchObject({
      code: 'blob-hash-mismatch',
      algorithm: 'sha256',
      expected: wrong,
      actual: sha256(bytes),
    });
    const badMd5 = 'f'.repeat(32);
    const m = unwrapErr(
      await storage().putByKey(T, 'b', 'k', { name: 'n', contentType: 'a/b', bytes, expectedMd5: badMd5 }),
    );
    expect(m).toMatchObject({ code: 'blob-hash-mismatch', algorithm: 'md5', expected: badMd5, actual: md5(bytes) });
    expect(unwrap(await storage().list(T, {})).data).toEqual([]);
    const good = await storage().putByKey(T, 'b', 'k', {
      name: 'n',
      contentType: 'a/b',
      bytes: webStream(bytes),
      expectedHash: sha256(bytes).toUpperCase(),
      expectedMd5: md5(bytes),
    });
    expect(unwrap(good).hash).toBe(sha256(bytes));
  });

  it('ranged get returns exactly the inclusive range', async () => {
    const bytes = pattern(200_000, 9);
    const meta = unwrap(await storage().putByKey(T, 'b', 'r', { name: 'r', contentType: 'a/b', bytes }));
    const cases = [
      { start: 0, end: 0 },
      { start: 10, end: 19 },
      { start: 65_530, end: 131_080 },
      { start: 199_999, end: 199_999 },
      { start: 0, end: 199_999 },
    ];
    for (const range of cases) {
      const byKey = unwrap(await storage().getByKey(T, 'b', 'r', { range }));
      expect(byKey.meta.size).toBe(200_000);
      expect((await readAll(byKey.stream)).equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
      const byId = unwrap(await storage().get(T, meta.blobId, { range }));
      expect((await readAll(byId.stream)).equals(bytes.subarray(range.start, range.end + 1))).toBe(true);
    }
  });

  it('putByKey replaces the object (last write wins) and gives it a fresh blobId', async () => {
    const first = unwrap(
      await storage().putByKey(T, 'b', 'k', { name: '1', contentType: 'a/b', bytes: Buffer.from('1') }),
    );
    const second = unwrap(
      await storage().putByKey(T, 'b', 'k', { name: '2', contentType: 'a/b', bytes: Buffer.from('22') }),
    );
    expect(second.blobId).not.toBe(first.blobId);
    expect(unwrapErr(await storage().get(T, first.blobId))).toMatchObject({
      code: 'blob-not-found',
      blobId: first.blobId,
    });
    expect(unwrap(await storage().head(T, first.blobId))).toBeNull();
    expect(unwrap(await storage().headByKey(T, 'b', 'k'))).toEqual(second);
    expect(unwrap(await storage().list(T, {})).data.map((meta) => meta.blobId)).toEqual([second.blobId]);
  });

  it('delete and deleteByKey remove objects; deleting a missing one is {deleted:false}', async () => {
    const a = unwrap(await storage().put(T, { name: 'a', contentType: 'a/b', bytes: Buffer.from('a') }));
    unwrap(await storage().putByKey(T, 'b', 'k', { name: 'k', contentType: 'a/b', bytes: Buffer.from('k') }));
    expect(unwrap(await storage().delete(T, a.blobId))).toEqual({ deleted: true });
    expect(unwrap(await storage().delete(T, a.blobId))).toEqual({ deleted: false });
    expect(unwrap(await storage().headByKey(T, 'artifacts', a.blobId))).toBeNull();
    expect(unwrap(await storage().deleteByKey(T, 'b', 'k'))).toEqual({ deleted: true });
    expect(unwrap(await storage().deleteByKey(T, 'b', 'k'))).toEqual({ deleted: false });
    expect(unwrapErr(await storage().getByKey(T, 'b', 'k'))).toMatchObject({
      code: 'blob-not-found',
      bucket: 'b',
      key: 'k',
    });
    expect(unwrap(await storage().list(T, {})).data).toEqual([]);
  });
}
