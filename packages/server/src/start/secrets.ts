import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createSecretStore,
  DEFAULT_SECRET_ENV,
  parseSecretKey,
  type SecretKey,
  type SecretKeyring,
  type SecretRowsPort,
  type SecretStore,
} from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';
import type { SecretsConfig } from '../config/secrets-config.js';
import { envFileSecretStore } from '../storage/env-file-secrets.js';
import type { ServerLogger } from '../telemetry/logger.js';

/** Tenant secrets as the server runs them: the store, and the env calls resolve them in. */
export interface ServerSecrets {
  readonly store: SecretStore;
  readonly env: string;
  /** Told the values each call carries (the server's log redactor). */
  readonly onSend?: (values: readonly string[]) => void;
}

const GENERATED_KEY_FILE = 'secrets.key';

/** The key in a file (its whole content, trimmed), or in `dataDir/secrets.key`, made once (0600) when missing. */
function keyFromFile(path: string, create: boolean): Result<string, string> {
  if (create) {
    try {
      writeFileSync(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code !== 'EEXIST') return err(`${path}: ${messageOf(cause)}`);
    }
  }
  try {
    return ok(readFileSync(path, 'utf8').trim());
  } catch (cause) {
    return err(`${path}: cannot read the secrets key: ${messageOf(cause)}`);
  }
}

/** The keyring from config: `key` or `keyFile`, else the generated key in the data directory. */
function loadKeyring(
  config: SecretsConfig | undefined,
  dataDir: string,
): Result<SecretKeyring & { generated?: string }, string[]> {
  if (config?.key !== undefined && config.keyFile !== undefined) return err(['secrets: give key or keyFile, not both']);
  const generated =
    config?.key === undefined && config?.keyFile === undefined ? join(dataDir, GENERATED_KEY_FILE) : undefined;
  const encoded =
    config?.key !== undefined ? ok(config.key) : keyFromFile(config?.keyFile ?? (generated as string), !!generated);
  if (encoded.kind === 'err') return err([encoded.error]);
  const problems: string[] = [];
  const current = parseSecretKey(encoded.value, config?.keyId);
  if (current.kind === 'err') problems.push(`secrets.key: ${current.error}`);
  const previous: SecretKey[] = [];
  for (const [position, entry] of (config?.previousKeys ?? []).entries()) {
    const parsed = parseSecretKey(entry.key, entry.id);
    if (parsed.kind === 'err') problems.push(`secrets.previousKeys.${position}: ${parsed.error}`);
    else previous.push(parsed.value);
  }
  if (current.kind === 'err' || problems.length > 0) return err(problems);
  return ok({ current: current.value, previous, ...(generated ? { generated } : {}) });
}

/**
 * Opens tenant secrets over `rows`: loads the key, refuses to start when a stored secret is wrapped by a key
 * this server does not hold, and, when `previousKeys` are configured, re-wraps every secret under the
 * current key in the background (the online rotation of docs/secrets.md; calls keep working meanwhile).
 */
export async function openServerSecrets(
  config: SecretsConfig | undefined,
  rows: SecretRowsPort,
  dataDir: string,
  logger: ServerLogger,
): Promise<Result<ServerSecrets, string[]>> {
  // Secrets kept in env files (`kindgi dev`): no key, no encrypted store.
  if (config?.files !== undefined) {
    const env = config.env ?? DEFAULT_SECRET_ENV;
    logger.log('info', 'secrets-files', `tenant secrets of env ${env} are read from ${config.files.join(', ')}`, {
      env,
      files: config.files,
    });
    return ok({ store: envFileSecretStore({ files: config.files, env }), env });
  }
  const keyring = loadKeyring(config, dataDir);
  if (keyring.kind === 'err') return keyring;
  const store = createSecretStore({ rows, keyring: keyring.value });
  const checked = await store.checkKeys();
  if (checked.kind === 'err') return err([`secrets: ${checked.error.message}`]);
  const { current, previous, generated } = keyring.value;
  if (generated) {
    logger.log('info', 'secrets-key', `tenant secrets are wrapped by the key in ${generated} (id ${current.id})`, {
      keyId: current.id,
    });
  }
  if (previous.length > 0) {
    void store.rotate().then((rotated) => {
      if (rotated.kind === 'ok') {
        logger.log('info', 'secrets-rotated', `re-wrapped ${rotated.value.rewrapped} secrets under key ${current.id}`, {
          keyId: current.id,
          rewrapped: rotated.value.rewrapped,
        });
      } else {
        logger.log('error', 'secrets-rotation-failed', `secrets rotation stopped: ${rotated.error.message}`, {
          code: rotated.error.code,
        });
      }
    });
  }
  const env = config?.env ?? DEFAULT_SECRET_ENV;
  return ok({ store, env });
}
