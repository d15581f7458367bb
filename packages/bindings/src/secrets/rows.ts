import type { Result } from '@kindgi/protocol';
import type { SealedSecret, SecretAddress } from './cipher.js';
import type { SecretError } from './errors.js';

/** A stored secret: where it belongs, its sealed value, and its history's last step. */
export interface SecretRow extends SecretAddress, SealedSecret {
  /** 1 for the first value, one more for each later `PUT`. */
  readonly version: number;
  readonly createdAt: string;
  readonly updatedAt: string;
  /** Who set this version (a token's user id or principal), never a credential. */
  readonly updatedBy: string;
}

/** One change, kept for the tenant to read; never the value. */
export interface SecretAuditRow extends SecretAddress {
  /** Increases with every change of the store (the audit listing's order and cursor). */
  readonly seq: number;
  readonly action: 'set' | 'delete';
  readonly version: number;
  readonly actor: string;
  readonly at: string;
}

/** What a write stores; the rows port gives it its version. */
export interface SecretWrite extends SecretAddress, SealedSecret {
  readonly actor: string;
  readonly at: string;
}

/** Failures of the rows port are the store's outage, nothing else. */
export type SecretRowsResult<T> = Promise<Result<T, SecretError>>;

/**
 * The small storage port a backend implements for secrets; the semantics (names, encryption, versions,
 * audit) live once in `createSecretStore`. Each method is one transaction.
 */
export interface SecretRowsPort {
  /** Inserts or replaces the value at `write`'s address, its version one past the last, with a `set` audit row. */
  put(write: SecretWrite): SecretRowsResult<SecretRow>;
  read(address: SecretAddress): SecretRowsResult<SecretRow | null>;
  /** The rows of `names` in `env` that exist. */
  readMany(tenantId: string, env: string, names: readonly string[]): SecretRowsResult<SecretRow[]>;
  /** A tenant's rows in (env, name) order after `after` (env and name of the last row seen), at most `limit`. */
  list(
    tenantId: string,
    filter: { env?: string; after?: { env: string; name: string }; limit: number },
  ): SecretRowsResult<SecretRow[]>;
  /** Removes the row (answering it), with a `delete` audit row; null when there was none. */
  remove(address: SecretAddress, actor: string, at: string): SecretRowsResult<SecretRow | null>;
  /** A tenant's audit rows with `seq` above `afterSeq`, oldest first, at most `limit`. */
  audit(tenantId: string, filter: { afterSeq?: number; limit: number }): SecretRowsResult<SecretAuditRow[]>;
  /** Up to `limit` rows of any tenant whose data key is wrapped by another key than `kekId`. */
  wrappedByOthers(kekId: string, limit: number): SecretRowsResult<SecretRow[]>;
  /** Replaces a row's wrap when it is still at `version` under `fromKekId`; false when it changed meanwhile. */
  rewrap(
    address: SecretAddress,
    expected: { version: number; kekId: string },
    next: { kekId: string; wrappedKey: Buffer },
  ): SecretRowsResult<boolean>;
  /** Every key id some row is wrapped by. */
  keyIds(): SecretRowsResult<string[]>;
}
