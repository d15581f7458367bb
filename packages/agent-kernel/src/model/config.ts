import type { ModelCatalog, ModelProviderBinding } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { z } from 'zod';
import { createOpenAiCompatibleModel } from './openai-compatible.js';

/** The default of a model entry's `timeoutMs`: a whole call, retries and stream included. */
export const DEFAULT_MODEL_TIMEOUT_MS = 120_000;
/** The default of `maxRetries`: attempts after the first on 429 and 5xx. */
export const DEFAULT_MODEL_RETRIES = 2;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ENTRY_NAME = /^[a-z0-9][a-z0-9._-]{0,63}$/;

/** One entry of `models` in kindgi.server.json. */
export const modelEntrySchema = z
  .object({
    provider: z.literal('openai-compatible'),
    baseUrl: z.url({ protocol: /^https?$/ }).max(2048),
    model: z.string().min(1).max(256),
    apiKey: z.string().min(1).max(4096).optional(),
    apiKeyEnv: z.string().regex(ENV_NAME).max(256).optional(),
    timeoutMs: z.number().int().min(1_000).max(3_600_000).default(DEFAULT_MODEL_TIMEOUT_MS),
    maxRetries: z.number().int().min(0).max(10).default(DEFAULT_MODEL_RETRIES),
    stream: z.boolean().default(true),
  })
  .strict()
  .refine((entry) => entry.apiKey === undefined || entry.apiKeyEnv === undefined, {
    message: 'give apiKey or apiKeyEnv, not both',
  });

/** `models` in kindgi.server.json: named entries, `default` among them (an agent without `model` uses it). */
export const modelsConfigSchema = z
  .record(z.string().regex(ENTRY_NAME), modelEntrySchema)
  .refine((models) => Object.hasOwn(models, 'default'), { message: 'models needs a "default" entry' });

/** A parsed `models` block. */
export type ModelsConfig = z.output<typeof modelsConfigSchema>;
/** One parsed model entry. */
export type ModelEntry = z.output<typeof modelEntrySchema>;

/**
 * The configured models as a catalog, keys read from `env` for entries with `apiKeyEnv`: an entry whose
 * variable is unset is an error naming it (the server refuses to start rather than fail every turn).
 */
export function createModelCatalog(
  models: ModelsConfig,
  env: Readonly<Record<string, string | undefined>>,
): Result<ModelCatalog, string> {
  const built = new Map<string, ModelProviderBinding>();
  for (const [name, entry] of Object.entries(models)) {
    let apiKey = entry.apiKey;
    if (entry.apiKeyEnv !== undefined) {
      apiKey = env[entry.apiKeyEnv];
      if (apiKey === undefined || apiKey === '') {
        return err(`models.${name}.apiKeyEnv names ${entry.apiKeyEnv}, which is not set`);
      }
    }
    built.set(
      name,
      createOpenAiCompatibleModel({
        baseUrl: entry.baseUrl,
        model: entry.model,
        timeoutMs: entry.timeoutMs,
        maxRetries: entry.maxRetries,
        stream: entry.stream,
        ...(apiKey !== undefined ? { apiKey } : {}),
      }),
    );
  }
  return ok({ get: (name) => built.get(name) });
}
