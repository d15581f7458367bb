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

async function* manyChunks(count: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < count; i++) {
    // A macrotask between chunks, so a write can settle (or fail) while the next chunk is awaited.
    await new Promise((resolve) => setImmediate(resolve));
    yield Buffer.from([i]);
  }
}

it('writes one chunk at a time, in order, while the next chunk is read and hashed', async () => {
  const written: number[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const result = await consumeBody(
    manyChunks(20),
    async (chunk) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setImmediate(resolve));
      written.push(chunk[0] as number);
      running--;
    },
    {},
  );
  expect(result).toMatchObject({ kind: 'ok', value: { size: 20 } });
  expect(written).toEqual([...Array(20).keys()]);
  expect(mostAtOnce).toBe(1);
});

it('reports a write that fails while the next chunk is awaited, without an unhandled rejection', async () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  try {
    const disk = new Error('EIO');
    let calls = 0;
    const result = await consumeBody(
      manyChunks(10),
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
