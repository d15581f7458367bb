import { createHash, randomBytes } from 'node:crypto';
import { afterEach, expect, it } from 'vitest';
import { hashWorkerCount } from '../src/blob-core/hash-workers.js';
import { HashWorkerPool } from '../src/index.js';

const pools: HashWorkerPool[] = [];
afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.terminate();
});

function poolOf(size: number): HashWorkerPool {
  const pool = new HashWorkerPool(size);
  pools.push(pool);
  return pool;
}

const hex = (algorithm: string, ...pieces: Buffer[]) => {
  const hash = createHash(algorithm);
  for (const piece of pieces) hash.update(piece);
  return hash.digest('hex');
};

it('hashes on one worker or split over two, reading shared memory in the order sent', async () => {
  const pieces = [randomBytes(700_000), randomBytes(1), randomBytes(300_000)];
  const shared = pieces.map((piece) => {
    const slab = Buffer.from(new SharedArrayBuffer(piece.length));
    slab.set(piece);
    return slab;
  });
  for (const size of [0, 1, 2]) {
    const pool = poolOf(size);
    const both = pool.open(['sha256', 'md5']);
    const sha256 = pool.open(['sha256']);
    const md5 = pool.open(['md5']);
    await Promise.all(shared.flatMap((slab) => [both, sha256, md5].map((hash) => hash.update(slab))));
    expect(await both.digest()).toEqual([hex('sha256', ...pieces), hex('md5', ...pieces)]);
    expect(await sha256.digest()).toEqual([hex('sha256', ...pieces)]);
    expect(await md5.digest()).toEqual([hex('md5', ...pieces)]);
  }
});

it('a worker that dies fails its sessions at once; the pool starts a new one for the next', async () => {
  const pool = poolOf(1);
  const hash = pool.open(['md5']);
  await hash.update(Buffer.from('abc'));
  await pool.terminate();
  await expect(hash.update(Buffer.from('def'))).rejects.toThrow(/exited/);
  await expect(hash.digest()).rejects.toThrow(/exited/);
  // Dropping a failed session is harmless.
  hash.drop();
  const next = pool.open(['md5']);
  await next.update(Buffer.from('abc'));
  expect(await next.digest()).toEqual([hex('md5', Buffer.from('abc'))]);
});

it('a dropped session still answers the updates already sent', async () => {
  const pool = poolOf(1);
  const hash = pool.open(['sha256']);
  const sent = [hash.update(randomBytes(1000)), hash.update(randomBytes(1000))];
  hash.drop();
  await expect(Promise.all(sent)).resolves.toEqual([undefined, undefined]);
});

it('runs no workers below three cores, one per core beside the event loop up to four, or as many as set', () => {
  expect(hashWorkerCount({}, 1)).toBe(0);
  expect(hashWorkerCount({}, 2)).toBe(0);
  expect(hashWorkerCount({}, 3)).toBe(2);
  expect(hashWorkerCount({}, 64)).toBe(4);
  expect(hashWorkerCount({ KINDGI_HASH_WORKERS: '0' }, 8)).toBe(0);
  expect(hashWorkerCount({ KINDGI_HASH_WORKERS: '3' }, 2)).toBe(3);
  // Not a count: the default stands.
  expect(hashWorkerCount({ KINDGI_HASH_WORKERS: 'many' }, 2)).toBe(0);
});
