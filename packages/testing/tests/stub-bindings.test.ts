import { describe, expect, it } from 'vitest';
import {
  createStaticS3Credentials,
  createStaticTokenResolver,
  createStubAppBindings,
  UnprovidedBindingError,
} from '../src/index.js';

describe('createStubAppBindings', () => {
  it.each([
    ['runStore', (b: ReturnType<typeof createStubAppBindings>) => b.runStore.get('t', 'r'), 'runStore.get()'],
    [
      'blobStorage',
      (b: ReturnType<typeof createStubAppBindings>) => b.blobStorage.listParts('t', 'b', 'k', 'u'),
      'blobStorage.listParts()',
    ],
    [
      'toolRegistry',
      (b: ReturnType<typeof createStubAppBindings>) => b.toolRegistry.listTools('t'),
      'toolRegistry.listTools()',
    ],
    [
      's3Credentials',
      (b: ReturnType<typeof createStubAppBindings>) => b.s3Credentials.resolve('AK'),
      's3Credentials.resolve()',
    ],
    [
      'idempotencyStore',
      (b: ReturnType<typeof createStubAppBindings>) => b.idempotencyStore.get('k'),
      'idempotencyStore.get()',
    ],
    ['resolveToken', (b: ReturnType<typeof createStubAppBindings>) => b.resolveToken('x'), 'resolveToken.call()'],
    [
      'runHandler',
      (b: ReturnType<typeof createStubAppBindings>) =>
        b.runHandler({ tool: { id: 'x' }, input: {}, ctx: { tenantId: 't', runId: 'r' } }),
      'runHandler.call()',
    ],
    [
      'runCheck',
      (b: ReturnType<typeof createStubAppBindings>) => b.runCheck({ check: { id: 'c' }, config: {}, trace: {} }),
      'runCheck.call()',
    ],
  ])('an unprovided %s rejects with an error naming binding and method', async (binding, call, text) => {
    const bindings = createStubAppBindings();
    const error = await call(bindings).then(
      () => null,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(UnprovidedBindingError);
    expect((error as UnprovidedBindingError).binding).toBe(binding);
    expect((error as Error).message).toContain(text);
    expect((error as Error).message).toContain('createStubAppBindings');
  });

  it('uses the bindings it is given', async () => {
    const resolveToken = createStaticTokenResolver({ t1: { tenantId: 'a', userId: 'u' } });
    const bindings = createStubAppBindings({ resolveToken });
    expect(await bindings.resolveToken('t1')).toEqual({ tenantId: 'a', userId: 'u' });
    expect(await bindings.resolveToken('other')).toBeNull();
  });

  it('an object binding is not mistaken for a promise', async () => {
    const { runStore } = createStubAppBindings();
    expect(await Promise.resolve(runStore)).toBe(runStore);
  });
});

describe('createStaticS3Credentials', () => {
  it('resolves known keys to copies and unknown keys to null', async () => {
    const binding = createStaticS3Credentials({ AK1: { secretKey: 's', tenantId: 't', bucket: 'b' } });
    const first = await binding.resolve('AK1');
    expect(first).toEqual({ secretKey: 's', tenantId: 't', bucket: 'b' });
    if (first) first.bucket = 'changed';
    expect((await binding.resolve('AK1'))?.bucket).toBe('b');
    expect(await binding.resolve('AK2')).toBeNull();
  });
});
