import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { generateWire } from '../scripts/generate-wire.mjs';
import { PACK_ERROR_CODES, type PackErrorCode, type WireErrorCode } from '../src/index.js';
import { readSpec } from './spec-schemas.js';

const generatedDir = fileURLToPath(new URL('../src/generated/', import.meta.url));

describe('src/generated (from specs/ by scripts/generate-wire.mjs)', () => {
  it('is what the generator makes from the schemas now: run `pnpm --filter @kindgi/protocol generate`', async () => {
    const fresh = await generateWire();
    expect(readdirSync(generatedDir).sort()).toEqual(Object.keys(fresh).sort());
    for (const [name, text] of Object.entries(fresh)) {
      expect(readFileSync(`${generatedDir}${name}`, 'utf8'), `src/generated/${name} is stale`).toBe(text);
    }
  }, 30_000);

  it('makes the same files twice', async () => {
    expect(await generateWire()).toEqual(await generateWire());
  }, 30_000);

  it('types error codes as PACK_ERROR_CODES lists them', () => {
    const schema = readSpec('pack-protocol.schema.json') as { $defs: { errorCode: { enum: string[] } } };
    expect([...PACK_ERROR_CODES].sort()).toEqual([...schema.$defs.errorCode.enum].sort());
    expectTypeOf<WireErrorCode>().toEqualTypeOf<PackErrorCode>();
  });
});
