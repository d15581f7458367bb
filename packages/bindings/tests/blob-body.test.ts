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
