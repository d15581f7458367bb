import { createHash } from 'node:crypto';
import { expect, it } from 'vitest';
import { consumeBody } from '../src/index.js';

async function* chunks(): AsyncGenerator<Uint8Array> {
  yield Buffer.from('abc');
  yield Buffer.from('def');
}

it('reports a failing sink as blob-storage-error, not as a bad body', async () => {
  const disk = new Error('ENOSPC: no space left on device');
  const result = await consumeBody(
    chunks(),
    () => {
      throw disk;
    },
    {},
  );
  expect(result).toMatchObject({ kind: 'err', error: { code: 'blob-storage-error', cause: disk } });
});

it('refuses chunks that are not bytes as blob-body-failed', async () => {
  async function* strings(): AsyncGenerator<unknown> {
    yield 'text';
  }
  const result = await consumeBody(strings() as AsyncIterable<Uint8Array>, () => undefined, {});
  expect(result).toMatchObject({ kind: 'err', error: { code: 'blob-body-failed' } });
});

it('stops reading as soon as a body passes its declared size', async () => {
  let pulled = 0;
  async function* endless(): AsyncGenerator<Uint8Array> {
    for (;;) {
      pulled++;
      yield Buffer.alloc(1024);
    }
  }
  const result = await consumeBody(endless(), () => undefined, { size: 4096 });
  expect(result).toMatchObject({ kind: 'err', error: { code: 'blob-size-mismatch', declared: 4096, actual: 5120 } });
  expect(pulled).toBe(5);
});

/** `count` chunks of `bytes` each, chunk i filled with the byte i. */
async function* manyChunks(count: number, bytes: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) {
    // A macrotask between chunks, so a write can settle (or fail) while the next chunk is awaited.
    await new Promise((resolve) => setImmediate(resolve));
    yield Buffer.alloc(bytes, i);
  }
}

it('writes a large body one batch at a time, in order, while the next bytes are read and hashed', async () => {
  const written: Buffer[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const chunk = 300 * 1024;
  const result = await consumeBody(
    manyChunks(20, chunk),
    async (batch) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setImmediate(resolve));
      written.push(Buffer.from(batch));
      running--;
    },
    {},
  );
  const whole = Buffer.concat([...Array(20).keys()].map((i) => Buffer.alloc(chunk, i)));
  expect(Buffer.concat(written).equals(whole)).toBe(true);
  expect(written.length).toBeGreaterThan(1);
  expect(mostAtOnce).toBe(1);
  expect(result).toEqual({
    kind: 'ok',
    value: {
      size: whole.length,
      sha256: createHash('sha256').update(whole).digest('hex'),
      md5: createHash('md5').update(whole).digest('hex'),
    },
  });
});

it('hands a small body on whole, hashed on the event loop', async () => {
  const written: Uint8Array[] = [];
  const result = await consumeBody(manyChunks(3, 1000), (batch) => void written.push(batch), {});
  const whole = Buffer.concat([0, 1, 2].map((i) => Buffer.alloc(1000, i)));
  expect(written.map((batch) => Buffer.from(batch))).toEqual([whole]);
  expect(result).toMatchObject({ kind: 'ok', value: { md5: createHash('md5').update(whole).digest('hex') } });
});

it('reports a write that fails while the next chunk is awaited, without an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const disk = new Error('EIO');
    let calls = 0;
    const result = await consumeBody(
      manyChunks(10, 1024 * 1024),
      async () => {
        calls++;
        if (calls === 2) throw disk;
      },
      {},
    );
    expect(result).toMatchObject({ kind: 'err', error: { code: 'blob-storage-error', cause: disk } });
    expect(calls).toBe(2);
    await new Promise((resolve) => setImmediate(resolve));
    expect(unhandled).toEqual([]);
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
});
