import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Checks docs/ARCHITECTURE.md's package table against the workspace: the documented map stays true.
const root = fileURLToPath(new URL('../../../', import.meta.url));

function workspaceDependencies(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const dir of readdirSync(`${root}packages`)) {
    const manifest = JSON.parse(readFileSync(`${root}packages/${dir}/package.json`, 'utf8')) as {
      name: string;
      dependencies?: Record<string, string>;
    };
    const deps = Object.keys(manifest.dependencies ?? {})
      .filter((name) => name.startsWith('@kindgi/'))
      .map((name) => name.slice('@kindgi/'.length))
      .sort();
    out.set(manifest.name.slice('@kindgi/'.length), deps);
  }
  return out;
}

function documentedDependencies(): Map<string, string[]> {
  const text = readFileSync(`${root}docs/ARCHITECTURE.md`, 'utf8');
  const out = new Map<string, string[]>();
  for (const line of text.split('\n')) {
    const row = /^\|\s*`@kindgi\/([a-z0-9-]+)`[^|]*\|[^|]*\|([^|]+)\|\s*$/.exec(line);
    if (!row) continue;
    const cell = (row[2] as string).trim();
    const deps = cell === '(none)' ? [] : cell.split(',').map((dep) => dep.trim());
    out.set(row[1] as string, deps.sort());
  }
  return out;
}

describe('docs/ARCHITECTURE.md', () => {
  it('lists every package with exactly its workspace dependencies', () => {
    expect(documentedDependencies()).toEqual(workspaceDependencies());
  });

  it('has no dependency cycle', () => {
    const graph = workspaceDependencies();
    const state = new Map<string, 'visiting' | 'done'>();
    const visit = (name: string, path: string[]): void => {
      if (state.get(name) === 'done') return;
      if (state.get(name) === 'visiting') throw new Error(`cycle: ${[...path, name].join(' → ')}`);
      state.set(name, 'visiting');
      for (const dep of graph.get(name) ?? []) visit(dep, [...path, name]);
      state.set(name, 'done');
    };
    for (const name of graph.keys()) expect(() => visit(name, [])).not.toThrow();
  });

  it('keeps the protocol at the bottom', () => {
    expect(workspaceDependencies().get('protocol')).toEqual([]);
  });
});
