import type { Principal, S3Credential, S3CredentialBinding } from '@kindgi/bindings';
import { secretMatcher } from '@kindgi/protocol';
import type { LoadedServerConfig, ServerConfig } from '../config/config.js';
import { ensureDevCredentials, withDevCredentials } from '../storage/dev-credentials.js';

/**
 * The config the server runs with: in development, with the credentials of `<dataDir>/credentials.json`
 * added (created, and printed once, on the first start).
 */
export function withStartCredentials(loaded: LoadedServerConfig): ServerConfig {
  if (!loaded.development) return loaded.config;
  const dev = ensureDevCredentials(loaded.config.dataDir);
  if (dev.created) {
    process.stdout.write(
      `\nDevelopment credentials (also in ${dev.path}):\n` +
        `  API token:      ${dev.credentials.token}\n` +
        `  S3 access key:  ${dev.credentials.s3.accessKeyId}\n` +
        `  S3 secret key:  ${dev.credentials.s3.secretKey}\n` +
        `  S3 bucket:      ${dev.credentials.s3.bucket}\n\n`,
    );
  }
  return withDevCredentials(loaded.config, dev.credentials);
}

/** Looks tokens up with the constant-time `secretMatcher`, so the comparison's timing says nothing about them. */
export function tokenResolver(config: ServerConfig): (token: string) => Promise<Principal | null> {
  const entries = config.tokens.map((entry) => ({ matches: secretMatcher(entry.token), entry }));
  return async (token) => {
    const found = entries.find((candidate) => candidate.matches(token));
    if (!found) return null;
    const principal: Principal = { tenantId: found.entry.tenantId };
    if (found.entry.userId) principal.userId = found.entry.userId;
    return principal;
  };
}

/** The configured S3 access keys, by access key id. */
export function s3CredentialResolver(config: ServerConfig): S3CredentialBinding {
  const byKey = new Map<string, S3Credential>();
  for (const entry of config.s3Credentials) {
    const credential: S3Credential = { secretKey: entry.secretKey, tenantId: entry.tenantId, bucket: entry.bucket };
    if (entry.expiresAt) credential.expiresAt = new Date(entry.expiresAt);
    byKey.set(entry.accessKeyId, credential);
  }
  return { resolve: async (accessKeyId: string) => byKey.get(accessKeyId) ?? null };
}
