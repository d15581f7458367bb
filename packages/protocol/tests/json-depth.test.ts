import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../src/index.js';

function nestedArrays(depth: number): unknown {
  let value: unknown = 0;
  for (let i = 0; i < depth; i += 1) value = [value];
  return value;
}

function nestedObjects(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i += 1) value = { a: value };
  return value;
}

describe('exceedsJsonDepth', () => {
  it('documents 256 as the limit', () => {
    expect(MAX_JSON_DEPTH).toBe(256);
  });

  it('counts scalars as depth 0 and each array or object as one level', () => {
    for (const scalar of [null, 0, 'x', true, undefined]) expect(exceedsJsonDepth(scalar, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 1)).toBe(false);
    expect(exceedsJsonDepth({}, 0)).toBe(true);
    expect(exceedsJsonDepth({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(exceedsJsonDepth({ a: [1, { b: 2 }] }, 2)).toBe(true);
  });

  it('accepts exactly the limit and refuses one more, for arrays and objects', () => {
    expect(exceedsJsonDepth(nestedArrays(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nestedArrays(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(nestedObjects(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nestedObjects(MAX_JSON_DEPTH + 1))).toBe(true);
  });

  it('finds a deep branch beside wide shallow ones', () => {
    const wide = Array.from({ length: 1000 }, (_, i) => ({ i, tags: ['a', 'b'] }));
    expect(exceedsJsonDepth({ wide, deep: nestedObjects(10) }, 11)).toBe(false);
    expect(exceedsJsonDepth({ wide, deep: nestedObjects(11) }, 11)).toBe(true);
  });

  it('walks a value far deeper than the call stack allows without overflowing', () => {
    const text = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    expect(exceedsJsonDepth(JSON.parse(text))).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(text), 200_000)).toBe(false);
  });
});
