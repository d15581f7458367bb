import {
  createSecretStore,
  type SecretAddress,
  type SecretAuditRow,
  type SecretKeyring,
  type SecretRow,
  type SecretRowsPort,
  type SecretStore,
} from '@kindgi/bindings';
import { ok } from '@kindgi/protocol';

const keyOf = (address: SecretAddress) => JSON.stringify([address.tenantId, address.env, address.name]);
const order = (a: SecretRow, b: SecretRow) =>
  a.env < b.env ? -1 : a.env > b.env ? 1 : a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** The secrets rows port in memory: what the embedded and PostgreSQL adapters do, with Maps. */
export function createInMemorySecretRows(): SecretRowsPort {
  const rows = new Map<string, SecretRow>();
  const audit: SecretAuditRow[] = [];
  const record = (row: SecretAddress, action: 'set' | 'delete', version: number, actor: string, at: string) => {
    const { tenantId, env, name } = row;
    audit.push({ seq: audit.length + 1, tenantId, env, name, action, version, actor, at });
  };
  return {
    async put(write) {
      const { actor, at, ...rest } = write;
      const previous = rows.get(keyOf(write));
      const row: SecretRow = {
        ...rest,
        version: (previous?.version ?? 0) + 1,
        createdAt: previous?.createdAt ?? at,
        updatedAt: at,
        updatedBy: actor,
      };
      rows.set(keyOf(write), row);
      record(row, 'set', row.version, actor, at);
      return ok(row);
    },
    async read(address) {
      return ok(rows.get(keyOf(address)) ?? null);
    },
    async readMany(tenantId, env, names) {
      return ok(names.flatMap((name) => rows.get(keyOf({ tenantId, env, name })) ?? []));
    },
    async list(tenantId, { env, after, limit }) {
      const mine = [...rows.values()]
        .filter((row) => row.tenantId === tenantId && (env === undefined || row.env === env))
        .sort(order)
        .filter((row) => after === undefined || order(row, { ...row, env: after.env, name: after.name }) > 0);
      return ok(mine.slice(0, limit));
    },
    async remove(address, actor, at) {
      const row = rows.get(keyOf(address));
      if (!row) return ok(null);
      rows.delete(keyOf(address));
      record(row, 'delete', row.version, actor, at);
      return ok(row);
    },
    async audit(tenantId, { afterSeq, limit }) {
      return ok(
        audit
          .filter((row) => row.tenantId === tenantId && (afterSeq === undefined || row.seq > afterSeq))
          .slice(0, limit),
      );
    },
    async wrappedByOthers(kekId, limit) {
      return ok([...rows.values()].filter((row) => row.kekId !== kekId).slice(0, limit));
    },
    async rewrap(address, expected, next) {
      const row = rows.get(keyOf(address));
      if (!row || row.version !== expected.version || row.kekId !== expected.kekId) return ok(false);
      rows.set(keyOf(address), { ...row, ...next });
      return ok(true);
    },
    async keyIds() {
      return ok([...new Set([...rows.values()].map((row) => row.kekId))].sort());
    },
  };
}

/** A `SecretStore` in memory, under `keyring`. */
export function createInMemorySecretStore(keyring: SecretKeyring): SecretStore {
  return createSecretStore({ rows: createInMemorySecretRows(), keyring });
}
