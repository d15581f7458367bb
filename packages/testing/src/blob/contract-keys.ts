import { expect, it } from 'vitest';
import { AWKWARD_KEYS } from './awkward-keys.js';
import { type CurrentStorage, listAll, readAll, unwrap, unwrapErr } from './contract-helpers.js';

const T = 'tenant-a';

export { AWKWARD_KEYS };

async function putText(storage: CurrentStorage, bucket: string, key: string): Promise<void> {
  unwrap(await storage().putByKey(T, bucket, key, { name: 'n', contentType: 'text/plain', bytes: Buffer.from(key) }));
}

/** Key safety and ListObjectsV2 semantics. */
export function keyContract(storage: CurrentStorage): void {
  it('stores and reads back every key S3 allows, unchanged, up to 1024 UTF-8 bytes', async () => {
    expect(Buffer.byteLength(AWKWARD_KEYS.at(-1)!, 'utf8')).toBe(1024);
    for (const key of AWKWARD_KEYS) await putText(storage, 'b', key);
    for (const key of AWKWARD_KEYS) {
      const read = unwrap(await storage().getByKey(T, 'b', key));
      expect(read.meta.key).toBe(key);
      expect((await readAll(read.stream)).toString()).toBe(key);
    }
    const listed = await listAll(storage(), T, 'b', { maxKeys: 1000 });
    expect(listed.keys).toEqual([...AWKWARD_KEYS].sort());
    expect(unwrap(await storage().headByKey(T, 'b', 'etc/passwd'))).toBeNull();
    expect(unwrap(await storage().headByKey(T, 'b', 'leading/slash'))).toBeNull();
  });

  it('refuses only what S3 refuses: empty keys, keys over 1024 bytes, non-UTF-8 text', async () => {
    const body = { name: 'n', contentType: 'a/b', bytes: Buffer.from('x') };
    for (const key of ['', 'é'.repeat(512) + 'a', 'x'.repeat(1025), 'lone \uD800 surrogate']) {
      expect(unwrapErr(await storage().putByKey(T, 'b', key, body)).code).toBe('invalid-key');
    }
    expect(unwrap(await storage().putByKey(T, 'b', 'x'.repeat(1024), body)).key).toHaveLength(1024);
    expect(unwrapErr(await storage().initiateMultipartUpload(T, 'b', '', { contentType: 'a/b' })).code).toBe(
      'invalid-key',
    );
    expect(unwrap(await storage().list(T, {})).data).toHaveLength(1);
  });

  it('lists in UTF-16 code-unit order, which differs from code-point order above U+FFFF', async () => {
    const keys = ['\uffff', '😀', 'é', 'a', 'B', 'a/b', 'a-b', 'ab', '\u00ff'];
    for (const key of keys) await putText(storage, 'b', key);
    const listed = unwrap(await storage().listByPrefix(T, 'b', {}));
    expect(listed.contents.map((meta) => meta.key)).toEqual([
      'B',
      'a',
      'a-b',
      'a/b',
      'ab',
      'é',
      '\u00ff',
      '😀',
      '\uffff',
    ]);
    expect(listed.isTruncated).toBe(false);
    expect(listed.commonPrefixes).toEqual([]);
  });

  it('filters by prefix and groups by delimiter into common prefixes', async () => {
    const keys = ['docs/a.txt', 'docs/b/1.txt', 'docs/b/2.txt', 'docs/c/x/y', 'docs.txt', 'img/p.png', 'top'];
    for (const key of keys) await putText(storage, 'b', key);
    const root = unwrap(await storage().listByPrefix(T, 'b', { delimiter: '/' }));
    expect(root.contents.map((meta) => meta.key)).toEqual(['docs.txt', 'top']);
    expect(root.commonPrefixes).toEqual(['docs/', 'img/']);
    const docs = unwrap(await storage().listByPrefix(T, 'b', { prefix: 'docs/', delimiter: '/' }));
    expect(docs.contents.map((meta) => meta.key)).toEqual(['docs/a.txt']);
    expect(docs.commonPrefixes).toEqual(['docs/b/', 'docs/c/']);
    const flat = unwrap(await storage().listByPrefix(T, 'b', { prefix: 'docs' }));
    expect(flat.contents.map((meta) => meta.key)).toEqual([
      'docs.txt',
      'docs/a.txt',
      'docs/b/1.txt',
      'docs/b/2.txt',
      'docs/c/x/y',
    ]);
    const dash = unwrap(await storage().listByPrefix(T, 'b', { prefix: 'docs/', delimiter: '.t' }));
    expect(dash.commonPrefixes).toEqual(['docs/a.t', 'docs/b/1.t', 'docs/b/2.t']);
    expect(dash.contents.map((meta) => meta.key)).toEqual(['docs/c/x/y']);
    expect(unwrap(await storage().listByPrefix(T, 'b', { prefix: 'nothing/' })).contents).toEqual([]);
    expect(unwrap(await storage().listByPrefix(T, 'no-such-bucket', {})).contents).toEqual([]);
  });

  it('startAfter skips keys up to and including it', async () => {
    for (const key of ['a', 'b', 'c/1', 'c/2', 'd']) await putText(storage, 'b', key);
    const after = unwrap(await storage().listByPrefix(T, 'b', { startAfter: 'b' }));
    expect(after.contents.map((meta) => meta.key)).toEqual(['c/1', 'c/2', 'd']);
    const grouped = unwrap(await storage().listByPrefix(T, 'b', { startAfter: 'c/1', delimiter: '/' }));
    expect(grouped.commonPrefixes).toEqual(['c/']);
    expect(grouped.contents.map((meta) => meta.key)).toEqual(['d']);
    const beforePrefix = unwrap(await storage().listByPrefix(T, 'b', { startAfter: 'a', prefix: 'c/' }));
    expect(beforePrefix.contents.map((meta) => meta.key)).toEqual(['c/1', 'c/2']);
  });

  it('pages with maxKeys and continuation tokens, counting keys and common prefixes', async () => {
    const keys: string[] = [];
    for (let i = 0; i < 23; i++) keys.push(`k${String(i).padStart(2, '0')}`);
    for (let i = 0; i < 5; i++) keys.push(`dir${i}/x`, `dir${i}/y`);
    for (const key of keys) await putText(storage, 'b', key);
    const whole = unwrap(await storage().listByPrefix(T, 'b', { delimiter: '/' }));
    expect(whole.contents).toHaveLength(23);
    expect(whole.commonPrefixes).toHaveLength(5);
    for (const maxKeys of [1, 2, 3, 7, 27, 28]) {
      const paged = await listAll(storage(), T, 'b', { delimiter: '/', maxKeys });
      expect(paged.keys).toEqual(whole.contents.map((meta) => meta.key));
      expect(paged.commonPrefixes).toEqual(whole.commonPrefixes);
      expect(paged.pages).toBe(Math.ceil(28 / maxKeys));
    }
    const first = unwrap(await storage().listByPrefix(T, 'b', { maxKeys: 4 }));
    expect(first.isTruncated).toBe(true);
    expect(first.contents.map((meta) => meta.key)).toEqual(['dir0/x', 'dir0/y', 'dir1/x', 'dir1/y']);
  });

  it('maxKeys 0 lists nothing; bad maxKeys and bad tokens are refused', async () => {
    await putText(storage, 'b', 'a');
    const none = unwrap(await storage().listByPrefix(T, 'b', { maxKeys: 0 }));
    expect(none).toMatchObject({ contents: [], commonPrefixes: [], isTruncated: false });
    expect(unwrap(await storage().listByPrefix(T, 'b', { maxKeys: 5000 })).contents).toHaveLength(1);
    expect(unwrapErr(await storage().listByPrefix(T, 'b', { maxKeys: -1 })).code).toBe('invalid-key');
    expect(unwrapErr(await storage().listByPrefix(T, 'b', { maxKeys: 1.5 })).code).toBe('invalid-key');
    expect(unwrapErr(await storage().listByPrefix(T, 'b', { continuationToken: '%%%' })).code).toBe('invalid-key');
  });
}
