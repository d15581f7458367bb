import { expect, it } from 'vitest';
import { type CurrentStorage, gatedBody, readAll, unwrap, unwrapErr } from './contract-helpers.js';

const T = 'tenant-a';
const OTHER = 'tenant-b';
const body = (text: string) => ({ name: text, contentType: 'text/plain', bytes: Buffer.from(text) });

/** Conditional writes, filtered listing and tenant isolation. */
export function accessContract(storage: CurrentStorage): void {
  it('ifNoneMatch "*" creates only when the key is free', async () => {
    unwrap(await storage().putByKey(T, 'b', 'k', { ...body('first'), ifNoneMatch: '*' }));
    const refused = unwrapErr(await storage().putByKey(T, 'b', 'k', { ...body('second'), ifNoneMatch: '*' }));
    expect(refused.code).toBe('precondition-failed');
    expect(unwrap(await storage().headByKey(T, 'b', 'k'))?.name).toBe('first');
  });

  it('ifNoneMatch "*" is atomic: of two creates racing on one key exactly one wins', async () => {
    const a = gatedBody(Buffer.from('a-'), Buffer.from('body'));
    const b = gatedBody(Buffer.from('b-'), Buffer.from('body'));
    const first = storage().putByKey(T, 'b', 'race', {
      name: 'a',
      contentType: 'x/y',
      bytes: a.body,
      ifNoneMatch: '*',
    });
    const second = storage().putByKey(T, 'b', 'race', {
      name: 'b',
      contentType: 'x/y',
      bytes: b.body,
      ifNoneMatch: '*',
    });
    await Promise.all([a.reached, b.reached]);
    a.release();
    b.release();
    const results = await Promise.all([first, second]);
    const winners = results.filter((result) => result.kind === 'ok');
    expect(winners).toHaveLength(1);
    const loser = results.find((result) => result.kind === 'err');
    expect(loser && unwrapErr(loser).code).toBe('precondition-failed');
    const stored = unwrap(await storage().getByKey(T, 'b', 'race'));
    expect(stored.meta).toEqual(unwrap(winners[0]!));
    expect((await readAll(stored.stream)).toString()).toBe(`${stored.meta.name}-body`);
  });

  it('ifMatch replaces only the object with that ETag (quoted or not)', async () => {
    const v1 = unwrap(await storage().putByKey(T, 'b', 'k', body('v1')));
    const wrong = unwrapErr(await storage().putByKey(T, 'b', 'k', { ...body('bad'), ifMatch: '0'.repeat(32) }));
    expect(wrong.code).toBe('precondition-failed');
    const v2 = unwrap(await storage().putByKey(T, 'b', 'k', { ...body('v2'), ifMatch: `"${v1.etag}"` }));
    expect(unwrap(await storage().headByKey(T, 'b', 'k'))).toEqual(v2);
    const stale = unwrapErr(await storage().putByKey(T, 'b', 'k', { ...body('v3'), ifMatch: v1.etag }));
    expect(stale.code).toBe('precondition-failed');
    const missing = unwrapErr(await storage().putByKey(T, 'b', 'nothing', { ...body('x'), ifMatch: v2.etag }));
    expect(missing.code).toBe('precondition-failed');
    expect(unwrap(await storage().headByKey(T, 'b', 'nothing'))).toBeNull();
  });

  it('list filters by owner run, content type, project, bucket and every tag', async () => {
    const a = unwrap(
      await storage().put(T, { ...body('a'), ownerRunId: 'r1', projectId: 'p1', tags: { env: 'prod', team: 'x' } }),
    );
    const b = unwrap(
      await storage().put(T, { ...body('b'), contentType: 'image/png', ownerRunId: 'r2', tags: { env: 'prod' } }),
    );
    const c = unwrap(await storage().putByKey(T, 's3', 'c.txt', { ...body('c'), projectId: 'p1' }));
    const ids = async (filter: Parameters<ReturnType<CurrentStorage>['list']>[1]) =>
      unwrap(await storage().list(T, filter)).data.map((meta) => meta.blobId);
    expect(new Set(await ids({}))).toEqual(new Set([a.blobId, b.blobId, c.blobId]));
    expect(await ids({ ownerRunId: 'r1' })).toEqual([a.blobId]);
    expect(await ids({ contentType: 'image/png' })).toEqual([b.blobId]);
    expect(new Set(await ids({ projectId: 'p1' }))).toEqual(new Set([a.blobId, c.blobId]));
    expect(await ids({ bucket: 's3' })).toEqual([c.blobId]);
    expect(new Set(await ids({ tags: { env: 'prod' } }))).toEqual(new Set([a.blobId, b.blobId]));
    expect(await ids({ tags: { env: 'prod', team: 'x' } })).toEqual([a.blobId]);
    expect(await ids({ tags: { env: 'prod' }, ownerRunId: 'r2', contentType: 'text/plain' })).toEqual([]);
  });

  it('list pages with an opaque cursor, newest first, without repeats or gaps', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push(unwrap(await storage().put(T, body(`n${i}`))).blobId);
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const page = unwrap(await storage().list(T, {}, cursor, 3));
      expect(page.data.length).toBeLessThanOrEqual(3);
      seen.push(...page.data.map((meta) => meta.blobId));
      cursor = page.nextCursor;
      if (cursor === undefined) break;
    }
    expect(seen).toEqual([...ids].reverse());
    expect(unwrapErr(await storage().list(T, {}, 'not-a-cursor', 3)).code).toBe('invalid-key');
  });

  it('isolates tenants completely', async () => {
    const mine = unwrap(await storage().put(T, body('mine')));
    unwrap(await storage().putByKey(T, 'b', 'shared-key', body('mine-key')));
    expect(unwrapErr(await storage().get(OTHER, mine.blobId)).code).toBe('blob-not-found');
    expect(unwrap(await storage().head(OTHER, mine.blobId))).toBeNull();
    expect(unwrap(await storage().headByKey(OTHER, 'artifacts', mine.blobId))).toBeNull();
    expect(unwrap(await storage().list(OTHER, {})).data).toEqual([]);
    expect(unwrap(await storage().listByPrefix(OTHER, 'b', {})).contents).toEqual([]);
    expect(unwrap(await storage().delete(OTHER, mine.blobId))).toEqual({ deleted: false });
    expect(unwrap(await storage().deleteByKey(OTHER, 'b', 'shared-key'))).toEqual({ deleted: false });
    unwrap(await storage().putByKey(OTHER, 'b', 'shared-key', { ...body('theirs'), ifNoneMatch: '*' }));
    const read = unwrap(await storage().getByKey(T, 'b', 'shared-key'));
    expect((await readAll(read.stream)).toString()).toBe('mine-key');
    expect(unwrap(await storage().head(T, mine.blobId))?.name).toBe('mine');
    const upload = unwrap(await storage().initiateMultipartUpload(T, 'b', 'm', { contentType: 'a/b' }));
    expect(unwrapErr(await storage().listParts(OTHER, 'b', 'm', upload.uploadId)).code).toBe('upload-not-found');
  });

  it('returns copies: changing returned metadata changes nothing stored', async () => {
    const meta = unwrap(await storage().putByKey(T, 'b', 'k', { ...body('x'), tags: { a: '1' } }));
    meta.tags.a = 'changed';
    meta.name = 'changed';
    const again = unwrap(await storage().headByKey(T, 'b', 'k'));
    expect(again?.tags).toEqual({ a: '1' });
    expect(again?.name).toBe('x');
  });
}
