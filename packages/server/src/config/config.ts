import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { modelsConfigSchema } from '@kindgi/agent-kernel';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import { z } from 'zod';
import { configFileSecrets } from '../isolation/secrets.js';
import { remotePackSchema, remoteRepliesSchema } from '../packs/remote-pack.js';
import { connectionsConfigSchema } from '../start/connection-limits.js';
import { blobsConfigSchema, blobsFromEnv } from '../storage/blob-backend.js';
import { databaseConfigSchema, databaseFromEnv, runsConfigSchema } from '../storage/state-stores.js';
import { booleanVariable, jsonVariable, readVariable, wholeNumberVariable } from './env-values.js';
import { secretsConfigSchema, secretsFromEnv } from './secrets-config.js';

const tokenSchema = z.strictObject({
  token: z.string().min(16, 'a token needs at least 16 characters'),
  tenantId: z.string().min(1),
  userId: z.string().min(1).optional(),
});

const s3CredentialSchema = z.strictObject({
  accessKeyId: z.string().regex(/^[A-Za-z0-9]{8,128}$/, 'an access key id is 8..128 letters and digits'),
  secretKey: z.string().min(16, 'a secret key needs at least 16 characters'),
  tenantId: z.string().min(1),
  bucket: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, 'a bucket name is 3..63 lowercase letters, digits, dots and hyphens'),
  expiresAt: z.iso.datetime().optional(),
});

const packSchema = z.strictObject({
  dir: z.string().min(1),
  /** Values for the pack's declared env, on top of the pack's `.env` and `.env.local`. */
  env: z.record(z.string(), z.string()).optional(),
  /** `warn` serves a pack whose required env is missing (naming it in /v1/info); `strict` does not. */
  envCheck: z.enum(['strict', 'warn']).optional(),
  /** Reindex and swap the pack service when the pack's files change (and restart it when `.env`/`.env.local` do). */
  watch: z.boolean().optional(),
  /** `off` lets every variable of its environment reach pack code (`KINDGI_PACK_ENV_FILTER`); default `on`. */
  envFilter: z.enum(['on', 'off']).optional(),
  /**
   * `false`: the pack service gets only `PATH`, `HOME`, `TMPDIR` from the server's environment, not its
   * `LANG`, `TZ`, `OTEL_*` or the pack's declared names (`kindgi dev`); default true.
   */
  inheritEnv: z.boolean().optional(),
  /** A Python pack's interpreter (a virtualenv's `bin/python`, with the kindgi SDK); default `python3` on PATH. */
  python: z.string().min(1).optional(),
});

const port = z.number().int().min(0).max(65_535);

/** `kindgi.server.json`. Every field can also be set from the environment (`KINDGI_SERVER_*`). */
export const serverConfigSchema = z.strictObject({
  host: z.string().min(1).default('127.0.0.1'),
  port: port.default(8787),
  dataDir: z.string().min(1).default('.kindgi'),
  s3: z
    .strictObject({
      port: port.optional(),
      basePath: z.string().optional(),
      /** Regions a SigV4 scope may name, besides the default `us-east-1` (which stays accepted). */
      regions: z
        .array(z.string().regex(/^[a-z0-9-]{1,64}$/, 'a region is lowercase letters, digits and hyphens'))
        .optional(),
      /** Age (ms) after which an unfinished multipart upload is aborted; default 7 days. */
      multipartExpiryMs: z.number().int().positive().optional(),
      /** Multipart uploads one tenant may have in progress; past it CreateMultipartUpload is 503 SlowDown. Default 1000. */
      maxOpenUploadsPerTenant: z.number().int().positive().optional(),
    })
    .default({}),
  tokens: z.array(tokenSchema).default([]),
  s3Credentials: z.array(s3CredentialSchema).default([]),
  /** A pack folder this server indexes and runs (`dir`), or a pack service running elsewhere (`url`). */
  packs: z.array(z.union([packSchema, remotePackSchema])).default([]),
  /** Bytes of remote packs' replies read at once by this process, and a call's wait for room (docs/scaling.md). */
  remoteReplies: remoteRepliesSchema.prefault({}),
  docs: z.boolean().default(true),
  /** The MCP face at `/mcp` (docs/mcp.md): the tokens' tenants' tools for any Model Context Protocol client. */
  mcp: z
    .strictObject({
      enabled: z.boolean().default(true),
      /** Tools per `tools/list` page (default 100). */
      pageSize: z.number().int().min(1).max(1000).optional(),
    })
    .prefault({}),
  /** Largest artifact upload through /v1/artifacts, in bytes. */
  artifactMaxBytes: z.number().int().positive().optional(),
  /** Milliseconds SIGTERM waits for in-flight requests and runs before closing. */
  drainMs: z.number().int().min(0).default(8000),
  /**
   * Key sealing page cursors. Every server of one deployment must share it so a cursor continues on any of
   * them; without it, one is made once and kept in `database` (else in `dataDir`). A secret: never logged.
   */
  cursorSecret: z
    .string()
    .min(32, 'a cursor secret needs at least 32 characters')
    .max(1024, 'a cursor secret is at most 1024 characters')
    .optional(),
  /** Runs and idempotency (and S3 blob metadata) in PostgreSQL; without it, the embedded SQLite file. */
  database: databaseConfigSchema.optional(),
  /** Run queueing and execution: per-pack concurrency and queue bound, retry window, lease. */
  runs: runsConfigSchema.optional(),
  /** Run event streams: how many one tenant may hold open on this server (default 256; docs/scaling.md). */
  sse: z.strictObject({ maxStreamsPerTenant: z.number().int().min(1).optional() }).optional(),
  /**
   * The models agent runs call (docs/agents.md): `default` and other named OpenAI-compatible endpoints; an
   * entry's key is `apiKey`, or the variable `apiKeyEnv` names. Without it, agent runs are 501.
   */
  models: modelsConfigSchema.optional(),
  /** Where blob bytes live: `{ "kind": "s3", … }` (metadata in `database`), else files in `dataDir`. */
  blobs: blobsConfigSchema.optional(),
  /** Tenant secrets' key-encryption key and env (docs/secrets.md). */
  secrets: secretsConfigSchema.optional(),
  /** Prometheus metrics at `path`; with `token`, a scrape must send `Authorization: Bearer <token>`. */
  /**
   * The account pack services run as when the server runs as root (default `nobody`): a user name or
   * `uid[:gid]`; `root` keeps them as root. A server that is not root refuses any user but its own
   * (docs/security.md).
   */
  packUser: z.string().min(1).max(64).optional(),
  /** Timeouts and the per-address cap of every listener's connections (docs/security.md). */
  connections: connectionsConfigSchema.prefault({}),
  metrics: z
    .strictObject({
      enabled: z.boolean().default(false),
      path: z
        .string()
        .regex(/^\/[A-Za-z0-9._~/-]*$/, 'a metrics path starts with / and is a plain path')
        .default('/metrics'),
      token: z.string().min(16, 'a metrics token needs at least 16 characters').optional(),
    })
    .default({ enabled: false, path: '/metrics' }),
});

export type ServerConfig = z.output<typeof serverConfigSchema>;
export type ServerConfigInput = z.input<typeof serverConfigSchema>;
/** A pack this server indexes and runs from its folder. */
export type PackConfig = z.output<typeof packSchema>;

/** Where the config came from, for logs and for resolving relative paths. */
export interface LoadedServerConfig {
  config: ServerConfig;
  /** The config file, when one was read. */
  path?: string;
  /** True when neither a file nor the environment configured any token (a development deployment). */
  development: boolean;
  /** The secret-bearing fields the config file itself sets (names only), for the pack isolation check. */
  fileSecrets: string[];
}

const ENV_FIELDS: Record<string, { field: keyof ServerConfigInput; parse: 'string' | 'int' | 'bool' | 'json' }> = {
  KINDGI_SERVER_HOST: { field: 'host', parse: 'string' },
  KINDGI_SERVER_PORT: { field: 'port', parse: 'int' },
  KINDGI_SERVER_DATA_DIR: { field: 'dataDir', parse: 'string' },
  KINDGI_SERVER_DOCS: { field: 'docs', parse: 'bool' },
  KINDGI_SERVER_TOKENS: { field: 'tokens', parse: 'json' },
  KINDGI_SERVER_S3_CREDENTIALS: { field: 's3Credentials', parse: 'json' },
  KINDGI_SERVER_PACKS: { field: 'packs', parse: 'json' },
  KINDGI_SERVER_ARTIFACT_MAX_BYTES: { field: 'artifactMaxBytes', parse: 'int' },
  KINDGI_SERVER_DRAIN_MS: { field: 'drainMs', parse: 'int' },
  KINDGI_SERVER_PACK_USER: { field: 'packUser', parse: 'string' },
  // A string variable's value is never quoted back, so the secret stays out of error messages.
  KINDGI_SERVER_CURSOR_SECRET: { field: 'cursorSecret', parse: 'string' },
};

const VARIABLE_SCHEMAS = {
  string: () => z.string(),
  int: wholeNumberVariable,
  bool: booleanVariable,
  json: jsonVariable,
} satisfies Record<string, (name: string) => z.ZodType<unknown, string>>;

/** Sets `out[key]` when the value is defined (an unset variable leaves the file's value alone). */
function put(out: Record<string, unknown>, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

function fromEnv(env: NodeJS.ProcessEnv, problems: string[]): Partial<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [name, { field, parse }] of Object.entries(ENV_FIELDS)) {
    put(out, field, readVariable<unknown>(env, name, VARIABLE_SCHEMAS[parse](name), problems));
  }
  const s3: Record<string, unknown> = {};
  put(s3, 'port', readVariable(env, 'KINDGI_SERVER_S3_PORT', wholeNumberVariable('KINDGI_SERVER_S3_PORT'), problems));
  const regions = z.string().transform((raw) => raw.split(',').map((region) => region.trim()));
  put(s3, 'regions', readVariable(env, 'KINDGI_SERVER_S3_REGIONS', regions, problems));
  const expiry = 'KINDGI_SERVER_S3_MULTIPART_EXPIRY_MS';
  put(s3, 'multipartExpiryMs', readVariable(env, expiry, wholeNumberVariable(expiry), problems));
  if (Object.keys(s3).length > 0) out.s3 = s3;
  const database = databaseFromEnv(env);
  if (database) out.database = database;
  const blobs = blobsFromEnv(env, problems);
  if (blobs) out.blobs = blobs;
  const metrics = metricsFromEnv(env, problems);
  if (metrics) out.metrics = metrics;
  const secrets = secretsFromEnv(env);
  if (secrets) out.secrets = secrets;
  return out;
}

/** `KINDGI_SERVER_METRICS_ENABLED`, `_PATH` and `_TOKEN`, when any is set. */
function metricsFromEnv(env: NodeJS.ProcessEnv, problems: string[]): Record<string, unknown> | undefined {
  const metrics: Record<string, unknown> = {};
  const enabled = 'KINDGI_SERVER_METRICS_ENABLED';
  put(metrics, 'enabled', readVariable(env, enabled, booleanVariable(enabled), problems));
  put(metrics, 'path', readVariable(env, 'KINDGI_SERVER_METRICS_PATH', z.string(), problems));
  // The token's value is never quoted back: it is a secret.
  put(metrics, 'token', readVariable(env, 'KINDGI_SERVER_METRICS_TOKEN', z.string(), problems));
  return Object.keys(metrics).length > 0 ? metrics : undefined;
}

/** A union's issues are those of its closest branch (a folder pack or a remote one), not "Invalid input". */
function flattenIssues(issues: readonly z.core.$ZodIssue[], prefix: readonly PropertyKey[] = []): z.core.$ZodIssue[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code !== 'invalid_union' || issue.errors.length === 0) return [{ ...issue, path }];
    const closest = issue.errors.reduce((best, branch) => (branch.length < best.length ? branch : best));
    return flattenIssues(closest, path);
  });
}

function describeZodIssues(error: z.ZodError, source: string): string[] {
  return flattenIssues(error.issues).map((issue) => {
    const where = issue.path.length > 0 ? issue.path.join('.') : '(root)';
    return `${source}: ${where}: ${issue.message}`;
  });
}

function isBlock(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The file's config with the environment's values on top, field by field: a variable for one field of a
 * block (`KINDGI_SERVER_S3_REGIONS`) leaves the block's other fields from the file. Lists are replaced whole.
 */
function mergeBlocks(file: Record<string, unknown>, env: Record<string, unknown>): Record<string, unknown> {
  const merged: Record<string, unknown> = { ...file };
  for (const [key, value] of Object.entries(env)) {
    const under = merged[key];
    merged[key] = isBlock(under) && isBlock(value) ? mergeBlocks(under, value) : value;
  }
  return merged;
}

/**
 * Reads the server's config: the JSON file (when given), then `KINDGI_SERVER_*` variables on top.
 * Relative `dataDir` and pack `dir`s resolve against the config file's folder (else the working
 * directory). Every problem is reported at once.
 */
export function loadServerConfig(options: {
  configPath?: string;
  env?: NodeJS.ProcessEnv;
  cwd?: string;
}): Result<LoadedServerConfig, string[]> {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  const problems: string[] = [];
  let fileValue: Record<string, unknown> = {};
  let base = cwd;
  let path: string | undefined;
  if (options.configPath) {
    path = resolve(cwd, options.configPath);
    base = dirname(path);
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
        problems.push(`${path}: the config must be a JSON object`);
      } else fileValue = parsed as Record<string, unknown>;
    } catch (cause) {
      problems.push(`${path}: ${messageOf(cause)}`);
    }
  }
  const envValue = fromEnv(env, problems);
  if (problems.length > 0) return err(problems);
  const merged = mergeBlocks(fileValue, envValue);
  const parsed = serverConfigSchema.safeParse(merged);
  if (!parsed.success) return err(describeZodIssues(parsed.error, path ?? 'config'));
  const config = parsed.data;
  config.dataDir = resolve(base, config.dataDir);
  if (config.secrets?.keyFile !== undefined) config.secrets.keyFile = resolve(base, config.secrets.keyFile);
  const secretFiles = config.secrets?.files;
  if (config.secrets && secretFiles) config.secrets.files = secretFiles.map((file) => resolve(base, file));
  config.packs = config.packs.map((pack) => ('dir' in pack ? { ...pack, dir: resolve(base, pack.dir) } : pack));
  const development = config.tokens.length === 0;
  const loaded: LoadedServerConfig = { config, development, fileSecrets: configFileSecrets(fileValue) };
  if (path) loaded.path = path;
  return ok(loaded);
}
