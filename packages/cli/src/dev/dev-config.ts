import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { err, ok, type Result } from '@kindgi/protocol';
import { type LoadedServerConfig, serverConfigSchema } from '@kindgi/server';

/** The tenant a `kindgi dev` token calls as. */
export const DEV_TENANT = 'dev';
/** The env declared secrets resolve in under `kindgi dev` (read from the pack's env files). */
export const DEV_SECRET_ENV = 'local';
/** The port `kindgi dev` serves on unless `--port` says otherwise (a free one when it is taken). */
export const DEFAULT_DEV_PORT = 8787;
// A development server has no one to drain for: stop quickly on Ctrl-C.
const DEV_DRAIN_MS = 1000;

/** Where `kindgi dev` keeps its files inside the pack: `.kindgi/` (which `kindgi init`'s .gitignore covers). */
export function devPaths(packDir: string): { dataDir: string; devFile: string } {
  return { dataDir: join(packDir, '.kindgi', 'dev'), devFile: join(packDir, '.kindgi', 'dev.json') };
}

/** A fresh development bearer token (one per `kindgi dev` run). */
export function generateDevToken(): string {
  return `kgi_dev_${randomBytes(24).toString('base64url')}`;
}

/**
 * The server config of `kindgi dev`: one watched pack whose service gets only the pack's env files (plus
 * `PATH`, `HOME`, `TMPDIR`), env check `warn`, env filter `off`, and declared secrets from the same files.
 * The shell's `KINDGI_SERVER_*` variables are not read: a dev server is configured by its flags only.
 */
export function devServerConfig(options: {
  packDir: string;
  port: number;
  token: string;
}): Result<LoadedServerConfig, string[]> {
  const { packDir, port, token } = options;
  const parsed = serverConfigSchema.safeParse({
    host: '127.0.0.1',
    port,
    dataDir: devPaths(packDir).dataDir,
    tokens: [{ token, tenantId: DEV_TENANT }],
    drainMs: DEV_DRAIN_MS,
    // The author's own account runs the pack, as their shell would (a root shell in a container included).
    ...(process.getuid?.() === 0 ? { packUser: 'root' } : {}),
    packs: [{ dir: packDir, watch: true, envCheck: 'warn', envFilter: 'off', inheritEnv: false }],
    secrets: { env: DEV_SECRET_ENV, files: [join(packDir, '.env'), join(packDir, '.env.local')] },
  });
  if (!parsed.success) return err(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`));
  return ok({ config: parsed.data, development: false, fileSecrets: [] });
}
