import { describe, expect, it } from 'vitest';
import { createModelCatalog, modelsConfigSchema } from '../src/index.js';

const entry = { provider: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1', model: 'llama3.1' };

describe('the models block of kindgi.server.json', () => {
  it('fills the defaults and builds a catalog, keys from the environment', () => {
    const parsed = modelsConfigSchema.parse({
      default: { ...entry, apiKeyEnv: 'MODEL_KEY' },
      fast: { ...entry, apiKey: 'sk-x', timeoutMs: 5_000 },
    });
    expect(parsed.default).toEqual({
      ...entry,
      apiKeyEnv: 'MODEL_KEY',
      timeoutMs: 120_000,
      maxRetries: 2,
      stream: true,
    });
    const catalog = createModelCatalog(parsed, { MODEL_KEY: 'sk-env' });
    expect(catalog.kind).toBe('ok');
    if (catalog.kind === 'ok') {
      expect(catalog.value.get('fast')).toBeDefined();
      expect(catalog.value.get('other')).toBeUndefined();
    }
    expect(createModelCatalog(parsed, {})).toEqual({
      kind: 'err',
      error: 'models.default.apiKeyEnv names MODEL_KEY, which is not set',
    });
  });

  it.each([
    [{ fast: entry }, 'needs a'],
    [{ default: { ...entry, provider: 'anthropic' } }, 'provider'],
    [{ default: { ...entry, baseUrl: 'ftp://x' } }, 'baseUrl'],
    [{ default: { ...entry, apiKey: 'a', apiKeyEnv: 'B' } }, 'not both'],
    [{ default: { ...entry, timeoutMs: 10 } }, 'timeoutMs'],
    [{ default: { ...entry, extra: 1 } }, 'extra'],
  ])('refuses %j', (models, where) => {
    const parsed = modelsConfigSchema.safeParse(models);
    expect(parsed.success).toBe(false);
    expect(JSON.stringify(parsed.error?.issues)).toContain(where);
  });
});
