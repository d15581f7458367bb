import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ModuleCache, runHandler, toModuleSpecifier } from '../src/index.js';
import { CTX, fixture, openTool } from './helpers.js';

declare global {
  var __kindgiImportCount: number | undefined;
}

describe('module specifiers', () => {
  it('imports a file: URL', async () => {
    const url = pathToFileURL(fixture('named-run.mjs')).href;
    const outcome = await runHandler({ tool: openTool(url), input: { u: 1 }, ctx: CTX });
    expect(outcome).toEqual({ kind: 'ok', value: { shape: 'named-run', input: { u: 1 } } });
  });

  it('resolves a relative path against the working directory', () => {
    expect(toModuleSpecifier('tools/a b.mjs')).toBe(pathToFileURL(`${process.cwd()}/tools/a b.mjs`).href);
    expect(toModuleSpecifier('/x/#y.mjs')).toBe('file:///x/%23y.mjs');
    expect(toModuleSpecifier('file:///x/y.mjs')).toBe('file:///x/y.mjs');
    expect(toModuleSpecifier('data:text/javascript,export default 1')).toBe('data:text/javascript,export default 1');
  });
});

describe('module cache', () => {
  afterEach(() => {
    globalThis.__kindgiImportCount = undefined;
  });

  it('imports a module once per path, however many calls run (also concurrently)', async () => {
    const tool = openTool(fixture('import-counter.mjs'));
    const outcomes = await Promise.all([1, 2, 3].map(() => runHandler({ tool, input: {}, ctx: CTX })));
    const again = await runHandler({ tool, input: {}, ctx: CTX });
    for (const outcome of [...outcomes, again]) expect(outcome).toEqual({ kind: 'ok', value: { evaluations: 1 } });
  });

  it('calls a custom importer once per path and keeps it apart from other importers', async () => {
    const calls: string[] = [];
    const importHandler = (path: string) => {
      calls.push(path);
      return { handler: () => ({ from: 'custom' }) };
    };
    const modules = new ModuleCache();
    for (let i = 0; i < 3; i++) {
      await runHandler({ tool: openTool('virtual:a'), input: {}, ctx: CTX, importHandler, modules });
    }
    await runHandler({ tool: openTool('virtual:b'), input: {}, ctx: CTX, importHandler, modules });
    const other = await runHandler({
      tool: openTool('virtual:a'),
      input: {},
      ctx: CTX,
      importHandler: () => ({ handler: () => ({ from: 'other' }) }),
      modules,
    });
    expect(calls).toEqual(['virtual:a', 'virtual:b']);
    expect(other).toEqual({ kind: 'ok', value: { from: 'other' } });
  });

  it('does not keep a failed import, so a later call can succeed', async () => {
    let attempts = 0;
    const importHandler = () => {
      attempts += 1;
      if (attempts === 1) throw new Error('not deployed yet');
      return { handler: () => 'ready' };
    };
    const first = await runHandler({ tool: openTool('virtual:late'), input: {}, ctx: CTX, importHandler });
    const second = await runHandler({ tool: openTool('virtual:late'), input: {}, ctx: CTX, importHandler });
    expect(first.kind === 'err' && first.error.code).toBe('handler-import-failed');
    expect(second).toEqual({ kind: 'ok', value: 'ready' });
  });
});
