import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerConfig } from '../config/config.js';

/** What a development deployment generates on its first start. */
export interface DevCredentials {
  token: string;
  tenantId: string;
  s3: { accessKeyId: string; secretKey: string; bucket: string };
}

const DEV_TENANT = 'dev';

function generate(): DevCredentials {
  return {
    token: `kgi_dev_${randomBytes(24).toString('base64url')}`,
    tenantId: DEV_TENANT,
    s3: {
      accessKeyId: `KGI${randomBytes(10).toString('hex').toUpperCase()}`,
      secretKey: randomBytes(30).toString('base64url'),
      bucket: 'artifacts',
    },
  };
}

function isDevCredentials(value: unknown): value is DevCredentials {
  const v = value as DevCredentials;
  return (
    typeof v?.token === 'string' &&
    typeof v.tenantId === 'string' &&
    typeof v.s3?.accessKeyId === 'string' &&
    typeof v.s3.secretKey === 'string' &&
    typeof v.s3.bucket === 'string'
  );
}

/**
 * The development deployment's credentials: read from `<dataDir>/credentials.json`, or generated and
 * written there (owner-only) on the first start. `created` tells the caller to print them, once.
 */
export function ensureDevCredentials(dataDir: string): { credentials: DevCredentials; path: string; created: boolean } {
  const path = join(dataDir, 'credentials.json');
  try {
    const existing: unknown = JSON.parse(readFileSync(path, 'utf8'));
    if (isDevCredentials(existing)) return { credentials: existing, path, created: false };
  } catch {
    // Missing or unreadable: a fresh pair replaces it.
  }
  mkdirSync(dataDir, { recursive: true });
  const credentials = generate();
  writeFileSync(path, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  return { credentials, path, created: true };
}

/** The config with the development credentials added as its token and S3 key pair. */
export function withDevCredentials(config: ServerConfig, credentials: DevCredentials): ServerConfig {
  return {
    ...config,
    tokens: [...config.tokens, { token: credentials.token, tenantId: credentials.tenantId }],
    s3Credentials: [...config.s3Credentials, { ...credentials.s3, tenantId: credentials.tenantId }],
  };
}
