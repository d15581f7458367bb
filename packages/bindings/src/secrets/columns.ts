import { messageOf } from '@kindgi/protocol';
import { type SecretError, secretError } from './errors.js';
import type { SecretAuditRow, SecretRow } from './rows.js';

/** The columns of a stored secret, as both SQL adapters name them (one table layout, two databases). */
export interface SecretColumns {
  tenant_id: string;
  env: string;
  name: string;
  version: number;
  kek_id: string;
  wrapped_key: Buffer;
  ciphertext: Buffer;
  created_at: string;
  updated_at: string;
  updated_by: string;
}

/** The columns of an audit record. */
export interface SecretAuditColumns {
  seq: number | string;
  tenant_id: string;
  env: string;
  name: string;
  action: 'set' | 'delete';
  version: number;
  actor: string;
  at: string;
}

/** The secret columns in `SELECT` and `RETURNING` order. */
export const SECRET_COLUMN_LIST =
  'tenant_id, env, name, version, kek_id, wrapped_key, ciphertext, created_at, updated_at, updated_by';

/** The audit columns in `SELECT` order. */
export const SECRET_AUDIT_COLUMN_LIST = 'seq, tenant_id, env, name, action, version, actor, at';

export function secretRowOf(row: SecretColumns): SecretRow {
  return {
    tenantId: row.tenant_id,
    env: row.env,
    name: row.name,
    version: row.version,
    kekId: row.kek_id,
    wrappedKey: row.wrapped_key,
    ciphertext: row.ciphertext,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    updatedBy: row.updated_by,
  };
}

export function secretAuditOf(row: SecretAuditColumns): SecretAuditRow {
  return {
    seq: Number(row.seq),
    tenantId: row.tenant_id,
    env: row.env,
    name: row.name,
    action: row.action,
    version: row.version,
    actor: row.actor,
    at: row.at,
  };
}

/** A database failure as the secret store's outage (its message never holds a value: values are parameters). */
export function secretStorageFailure(cause: unknown): SecretError {
  return secretError('storage-unavailable', `The secret store is unavailable: ${messageOf(cause)}`);
}
