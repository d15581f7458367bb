import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadKindgiConfig, runIndexer, validatePackEnvDeclaration } from '../src/index.js';
import { configText, makePack, PINNED, removePacks, toolText } from './helpers/packs.js';

afterAll(removePacks);

function refusal(env: unknown): string {
  const result = validatePackEnvDeclaration(env);
  if (result.kind === 'ok') throw new Error('expected a refusal');
  return result.error;
}

describe('validatePackEnvDeclaration', () => {
  it('sorts both lists by code unit', () => {
    expect(validatePackEnvDeclaration({ required: ['b', 'B', 'a_1'], optional: ['_X'] })).toEqual({
      kind: 'ok',
      value: { required: ['B', 'a_1', 'b'], optional: ['_X'] },
    });
    expect(validatePackEnvDeclaration({})).toEqual({ kind: 'ok', value: { required: [], optional: [] } });
  });

  it('refuses each broken declaration with the reference message', () => {
    expect(refusal(['A'])).toBe(
      '`env` must be an object with `required` and/or `optional` lists of environment variable names',
    );
    expect(refusal({ x: [] })).toBe('`env` takes only `required` and `optional`, not `x`');
    expect(refusal({ required: 'A' })).toBe('`env.required` must be a list of names');
    expect(refusal({ required: ['1A'] })).toBe('"1A" in `env.required` isn\'t an environment variable name');
    expect(refusal({ optional: ['KINDGI_X'] })).toBe(
      '"KINDGI_X" in `env.optional`: `KINDGI_*` names configure Kindgi, not the pack',
    );
    expect(refusal({ required: ['A', 'A'] })).toBe('"A" is listed twice in `env.required`');
    expect(refusal({ required: ['A'], optional: ['A'] })).toBe('"A" is in both `env.required` and `env.optional`');
  });

  it('joins several refusals with "; "', () => {
    expect(refusal({ required: ['A', 'A', 'b-c'], extra: 1 })).toBe(
      '`env` takes only `required` and `optional`, not `extra`; "A" is listed twice in `env.required`; "b-c" in `env.required` isn\'t an environment variable name',
    );
  });
});

describe('the declared env in the config and the index', () => {
  it('fails the config load with config-parse-failed naming the file and every refusal', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText("env: { required: ['KINDGI_TOKEN'], optional: ['A', 'A'] }"),
    });
    const result = await loadKindgiConfig(pack);
    expect(result).toMatchObject({ kind: 'err', error: { code: 'config-parse-failed' } });
    if (result.kind === 'err') {
      expect(result.error.message).toBe(
        'kindgi.config.mjs: "KINDGI_TOKEN" in `env.required`: `KINDGI_*` names configure Kindgi, not the pack; "A" is listed twice in `env.optional`',
      );
    }
  });

  it('omits env from the index when both lists are empty', async () => {
    const pack = await makePack({
      'kindgi.config.mjs': configText('env: { required: [], optional: [] }'),
      'tools/a.mjs': toolText('acme.a'),
    });
    const outcome = await runIndexer({ packDir: pack, ...PINNED });
    expect(outcome.kind).toBe('ok');
    const index = JSON.parse(await readFile(join(pack, 'dist/index.json'), 'utf8'));
    expect('env' in index).toBe(false);
  });
});
