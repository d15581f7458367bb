import { err, ok, type Result } from '@kindgi/protocol';
import { openSecret, rewrapSecret, type SecretAddress, type SecretKeyring, sealSecret } from './cipher.js';
import { type SecretError, secretError } from './errors.js';
import { checkSecretEnv, checkSecretName, checkSecretValue, MAX_SECRET_VALUE_BYTES } from './names.js';
import type { SecretAuditRow, SecretRow, SecretRowsPort } from './rows.js';

/** What anyone may see of a secret: everything but its value. */
export interface SecretMetadata {
  readonly name: string;
  readonly env: string;
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  readonly updatedBy: string;
}

/** One change, as the tenant reads it. */
export interface SecretAuditEntry {
  readonly seq: number;
  readonly action: 'set' | 'delete';
  readonly name: string;
  readonly env: string;
  readonly version: number;
  readonly actor: string;
  readonly at: string;
}

/** A page of a listing; `after` continues it. */
export interface SecretPage<T> {
  readonly items: T[];
  readonly after?: string;
}

type Answer<T> = Promise<Result<T, SecretError>>;

/**
 * Tenant secrets, encrypted at rest: `(tenant, env, name) → value` with versions and an audit trail. Values
 * are only ever returned by `resolve`, for a call that declares them; every other answer is metadata.
 */
export interface SecretStore {
  put(input: SecretAddress & { value: string; actor: string }): Answer<SecretMetadata>;
  get(address: SecretAddress): Answer<SecretMetadata | null>;
  list(
    tenantId: string,
    options?: { env?: string; after?: string; limit?: number },
  ): Answer<SecretPage<SecretMetadata>>;
  delete(address: SecretAddress, actor: string): Answer<SecretMetadata | null>;
  audit(tenantId: string, options?: { after?: string; limit?: number }): Answer<SecretPage<SecretAuditEntry>>;
  /** The values of those of `names` that are set for the tenant in `env` (absent names are left out). */
  resolve(tenantId: string, env: string, names: readonly string[]): Answer<Map<string, string>>;
  /** Re-wraps every data key under the keyring's current key; answers how many it re-wrapped. */
  rotate(): Answer<{ rewrapped: number }>;
  /** `secret-key-unknown` when some secret is wrapped by a key the keyring lacks (checked at start). */
  checkKeys(): Answer<{ keyIds: string[] }>;
}

export interface SecretStoreOptions {
  rows: SecretRowsPort;
  keyring: SecretKeyring;
  now?: () => Date;
  maxValueBytes?: number;
}

const DEFAULT_PAGE = 100;
const MAX_PAGE = 1000;

function metadataOf(row: SecretRow): SecretMetadata {
  const { name, env, version, createdAt, updatedAt, updatedBy } = row;
  return { name, env, version, createdAt, updatedAt, updatedBy };
}

function auditOf(row: SecretAuditRow): SecretAuditEntry {
  const { seq, action, name, env, version, actor, at } = row;
  return { seq, action, name, env, version, actor, at };
}

function pageSize(limit: number | undefined): number {
  return Math.min(MAX_PAGE, Math.max(1, Math.floor(limit ?? DEFAULT_PAGE)));
}

function checkAddress(address: SecretAddress): Result<SecretAddress, SecretError> {
  const name = checkSecretName(address.name);
  if (name.kind === 'err') return name;
  const env = checkSecretEnv(address.env);
  return env.kind === 'err' ? env : ok(address);
}

// A listing continues after the (env, name) it last answered; the token is opaque to callers.
function listAfter(after: string | undefined): { env: string; name: string } | undefined {
  if (after === undefined) return undefined;
  const [env, name] = after.split('/');
  return env && name ? { env, name } : undefined;
}

/**
 * The one implementation of `SecretStore` over any backend's `SecretRowsPort`.
 * @example
 * const secrets = createSecretStore({ rows, keyring: { current: key, previous: [] } });
 * await secrets.put({ tenantId: 't1', env: 'production', name: 'CITATOR_KEY', value: 'k', actor: 'u1' });
 */
export function createSecretStore(options: SecretStoreOptions): SecretStore {
  const { rows, keyring } = options;
  const now = options.now ?? (() => new Date());
  const maxValueBytes = options.maxValueBytes ?? MAX_SECRET_VALUE_BYTES;
  return {
    async put(input) {
      const address = checkAddress(input);
      if (address.kind === 'err') return address;
      const value = checkSecretValue(input.value, maxValueBytes);
      if (value.kind === 'err') return value;
      const where = { tenantId: input.tenantId, env: input.env, name: input.name };
      const sealed = sealSecret(keyring.current, where, value.value);
      const written = await rows.put({ ...where, ...sealed, actor: input.actor, at: now().toISOString() });
      return written.kind === 'ok' ? ok(metadataOf(written.value)) : written;
    },
    async get(address) {
      const checked = checkAddress(address);
      if (checked.kind === 'err') return checked;
      const row = await rows.read(address);
      return row.kind === 'ok' ? ok(row.value ? metadataOf(row.value) : null) : row;
    },
    async list(tenantId, options = {}) {
      if (options.env !== undefined) {
        const env = checkSecretEnv(options.env);
        if (env.kind === 'err') return env;
      }
      const limit = pageSize(options.limit);
      const after = listAfter(options.after);
      const found = await rows.list(tenantId, {
        limit: limit + 1,
        ...(options.env !== undefined ? { env: options.env } : {}),
        ...(after ? { after } : {}),
      });
      if (found.kind === 'err') return found;
      const items = found.value.slice(0, limit).map(metadataOf);
      const last = items.at(-1);
      return ok(found.value.length > limit && last ? { items, after: `${last.env}/${last.name}` } : { items });
    },
    async delete(address, actor) {
      const checked = checkAddress(address);
      if (checked.kind === 'err') return checked;
      const removed = await rows.remove(address, actor, now().toISOString());
      return removed.kind === 'ok' ? ok(removed.value ? metadataOf(removed.value) : null) : removed;
    },
    async audit(tenantId, options = {}) {
      const limit = pageSize(options.limit);
      const afterSeq =
        options.after !== undefined && /^\d{1,15}$/.test(options.after) ? Number(options.after) : undefined;
      const found = await rows.audit(tenantId, { limit: limit + 1, ...(afterSeq !== undefined ? { afterSeq } : {}) });
      if (found.kind === 'err') return found;
      const items = found.value.slice(0, limit).map(auditOf);
      const last = items.at(-1);
      return ok(found.value.length > limit && last ? { items, after: String(last.seq) } : { items });
    },
    async resolve(tenantId, env, names) {
      const values = new Map<string, string>();
      if (names.length === 0) return ok(values);
      const found = await rows.readMany(tenantId, env, names);
      if (found.kind === 'err') return found;
      for (const row of found.value) {
        const opened = openSecret(keyring, row, row);
        if (opened.kind === 'err')
          return err({ ...opened.error, details: { ...opened.error.details, name: row.name } });
        values.set(row.name, opened.value);
      }
      return ok(values);
    },
    rotate: () => rotateAll(rows, keyring),
    async checkKeys() {
      const ids = await rows.keyIds();
      if (ids.kind === 'err') return ids;
      const known = new Set([keyring.current.id, ...keyring.previous.map((key) => key.id)]);
      const unknown = ids.value.filter((id) => !known.has(id));
      if (unknown.length === 0) return ok({ keyIds: ids.value });
      return err(
        secretError(
          'secret-key-unknown',
          `Secrets are wrapped by keys this server does not hold: ${unknown.join(', ')} (give the key, or its successor after rotating)`,
          { kekIds: unknown },
        ),
      );
    },
  };
}

const ROTATE_BATCH = 100;

/** Re-wraps batch after batch until no row is under another key; a row changed meanwhile is read again. */
async function rotateAll(rows: SecretRowsPort, keyring: SecretKeyring): Answer<{ rewrapped: number }> {
  let rewrapped = 0;
  for (;;) {
    const batch = await rows.wrappedByOthers(keyring.current.id, ROTATE_BATCH);
    if (batch.kind === 'err') return batch;
    if (batch.value.length === 0) return ok({ rewrapped });
    let progressed = false;
    for (const row of batch.value) {
      const next = rewrapSecret(keyring, row, row);
      if (next.kind === 'err') return next;
      const swapped = await rows.rewrap(row, { version: row.version, kekId: row.kekId }, next.value);
      if (swapped.kind === 'err') return swapped;
      if (swapped.value) rewrapped++;
      progressed ||= swapped.value;
    }
    // Rows that keep changing under an old key mean a server still writes with it: stop rather than chase it.
    if (!progressed) return ok({ rewrapped });
  }
}
