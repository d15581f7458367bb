import { z } from 'zod';

const keySchema = z.string().min(1, 'a secrets key is the base64 of 32 bytes').max(512);
const keyIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'a secrets key id is 1 to 64 letters, digits, - or _');

/**
 * `secrets`: the key-encryption key tenant secrets are wrapped by (docs/secrets.md). One of `key` (base64 of
 * 32 random bytes) or `keyFile` (a file holding it); without either, the server keeps a generated one in
 * `dataDir/secrets.key`. `previousKeys` stay readable while a rotation re-wraps everything under `key`.
 */
export const secretsConfigSchema = z.strictObject({
  key: keySchema.optional(),
  keyId: keyIdSchema.optional(),
  keyFile: z.string().min(1).optional(),
  previousKeys: z
    .array(z.strictObject({ key: keySchema, id: keyIdSchema.optional() }))
    .max(8)
    .optional(),
  /**
   * Dotenv files (the later wins) that hold the secrets of `env`, read on every call instead of the
   * encrypted store, which is not opened (`kindgi dev`: the pack's `.env` and `.env.local`, env `local`).
   */
  files: z.array(z.string().min(1)).min(1).max(8).optional(),
  /** The env calls resolve secrets in and writes default to (default: `KINDGI_ENV`, else `production`). */
  env: z
    .string()
    .regex(/^[a-z][a-z0-9-]{0,31}$/, 'an env is 1 to 32 lowercase letters, digits and hyphens')
    .optional(),
});

export type SecretsConfig = z.output<typeof secretsConfigSchema>;

/** `KINDGI_SERVER_SECRETS_KEY`, `_KEY_ID`, `_KEY_FILE` and `KINDGI_ENV`, when any is set (values never quoted). */
export function secretsFromEnv(env: NodeJS.ProcessEnv): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  const set = (field: string, value: string | undefined) => {
    if (value !== undefined && value !== '') out[field] = value;
  };
  set('key', env.KINDGI_SERVER_SECRETS_KEY);
  set('keyId', env.KINDGI_SERVER_SECRETS_KEY_ID);
  set('keyFile', env.KINDGI_SERVER_SECRETS_KEY_FILE);
  set('env', env.KINDGI_ENV);
  return Object.keys(out).length > 0 ? out : undefined;
}
