import { randomBytes } from 'node:crypto';
import {
  createSecretStore,
  parseSecretKey,
  type SecretKey,
  type SecretRowsPort,
  type SecretStore,
} from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

/** Fresh, empty rows for one test of {@link describeSecretStoreContract}, and how to close them. */
export interface SecretStoreContractSubject {
  rows: SecretRowsPort;
  /** Every byte the backend keeps (files, a database dump), to search for plaintext values. */
  dump?(): Promise<Buffer>;
  close?(): Promise<void> | void;
}

function value<T>(result: Result<T, unknown>): T {
  if (result.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}

function newKey(id?: string): SecretKey {
  return value(parseSecretKey(randomBytes(32).toString('base64'), id));
}

const at = (tenantId: string, name: string, env = 'production') => ({ tenantId, env, name });

/** The `SecretStore` contract over a backend's rows port, as a vitest suite. */
export function describeSecretStoreContract(name: string, factory: () => Promise<SecretStoreContractSubject>): void {
  describe(`SecretStore contract: ${name}`, () => {
    let subject: SecretStoreContractSubject | undefined;
    let key: SecretKey;
    let store: SecretStore;
    beforeEach(async () => {
      subject = await factory();
      key = newKey();
      store = createSecretStore({ rows: subject.rows, keyring: { current: key, previous: [] } });
    });
    afterEach(async () => {
      await subject?.close?.();
      subject = undefined;
    });

    it('sets, versions, reads back metadata only, and resolves values per tenant and env', async () => {
      const first = value(await store.put({ ...at('t1', 'CITATOR_KEY'), value: 'value-one-1234', actor: 'u1' }));
      expect(first).toMatchObject({ name: 'CITATOR_KEY', env: 'production', version: 1, updatedBy: 'u1' });
      expect(Object.keys(first).sort()).toEqual(['createdAt', 'env', 'name', 'updatedAt', 'updatedBy', 'version']);
      const second = value(await store.put({ ...at('t1', 'CITATOR_KEY'), value: 'value-two-5678', actor: 'u2' }));
      expect(second).toMatchObject({ version: 2, createdAt: first.createdAt, updatedBy: 'u2' });
      value(await store.put({ ...at('t1', 'CITATOR_KEY', 'staging'), value: 'staging-value', actor: 'u1' }));
      value(await store.put({ ...at('t2', 'CITATOR_KEY'), value: 'other-tenant', actor: 'u9' }));
      expect(value(await store.get(at('t1', 'CITATOR_KEY')))).toEqual(second);
      expect(value(await store.get(at('t1', 'MISSING')))).toBeNull();
      const resolved = value(await store.resolve('t1', 'production', ['CITATOR_KEY', 'MISSING']));
      expect([...resolved]).toEqual([['CITATOR_KEY', 'value-two-5678']]);
      expect([...value(await store.resolve('t1', 'staging', ['CITATOR_KEY']))]).toEqual([
        ['CITATOR_KEY', 'staging-value'],
      ]);
      expect([...value(await store.resolve('t2', 'production', ['CITATOR_KEY']))]).toEqual([
        ['CITATOR_KEY', 'other-tenant'],
      ]);
      expect([...value(await store.resolve('t3', 'production', ['CITATOR_KEY']))]).toEqual([]);
    });

    it('lists a tenant in (env, name) order, page by page, and deletes with an audit trail', async () => {
      for (const name of ['C_KEY', 'A_KEY', 'B_KEY']) {
        value(await store.put({ ...at('t1', name), value: `v-${name}`, actor: 'u1' }));
      }
      value(await store.put({ ...at('t1', 'A_KEY', 'local'), value: 'v', actor: 'u1' }));
      value(await store.put({ ...at('t2', 'Z_KEY'), value: 'v', actor: 'u1' }));
      const first = value(await store.list('t1', { limit: 2 }));
      expect(first.items.map((item) => `${item.env}/${item.name}`)).toEqual(['local/A_KEY', 'production/A_KEY']);
      const rest = value(await store.list('t1', { limit: 2, ...(first.after ? { after: first.after } : {}) }));
      expect(rest.items.map((item) => item.name)).toEqual(['B_KEY', 'C_KEY']);
      expect(rest.after).toBeUndefined();
      expect(value(await store.list('t1', { env: 'local' })).items.map((item) => item.name)).toEqual(['A_KEY']);

      expect(value(await store.delete(at('t1', 'B_KEY'), 'u3'))).toMatchObject({ name: 'B_KEY', version: 1 });
      expect(value(await store.delete(at('t1', 'B_KEY'), 'u3'))).toBeNull();
      expect(value(await store.delete(at('t2', 'A_KEY'), 'u3'))).toBeNull();
      const trail = value(await store.audit('t1')).items;
      expect(trail.map((entry) => [entry.action, entry.env, entry.name, entry.version, entry.actor])).toEqual([
        ['set', 'production', 'C_KEY', 1, 'u1'],
        ['set', 'production', 'A_KEY', 1, 'u1'],
        ['set', 'production', 'B_KEY', 1, 'u1'],
        ['set', 'local', 'A_KEY', 1, 'u1'],
        ['delete', 'production', 'B_KEY', 1, 'u3'],
      ]);
      const paged = value(await store.audit('t1', { limit: 3 }));
      expect(paged.items).toHaveLength(3);
      const after = value(await store.audit('t1', { ...(paged.after ? { after: paged.after } : {}) }));
      expect(after.items.map((entry) => entry.name)).toEqual(['A_KEY', 'B_KEY']);
    });

    it('refuses a bad name, env or value and stores nothing', async () => {
      const refused = [
        await store.put({ ...at('t1', 'lower'), value: 'v', actor: 'u' }),
        await store.put({ ...at('t1', '1ST'), value: 'v', actor: 'u' }),
        await store.put({ ...at('t1', 'OK', 'Prod'), value: 'v', actor: 'u' }),
        await store.put({ ...at('t1', 'OK'), value: '', actor: 'u' }),
        await store.put({ ...at('t1', 'OK'), value: 'x'.repeat(16 * 1024 + 1), actor: 'u' }),
      ];
      expect(refused.map((result) => (result.kind === 'err' ? result.error.code : 'ok'))).toEqual([
        'secret-name-invalid',
        'secret-name-invalid',
        'secret-env-invalid',
        'secret-value-invalid',
        'secret-value-invalid',
      ]);
      expect(value(await store.list('t1')).items).toEqual([]);
      expect(value(await store.audit('t1')).items).toEqual([]);
    });

    it('keeps no plaintext value in what it stores', async () => {
      const secret = `plain-${randomBytes(12).toString('hex')}`;
      value(await store.put({ ...at('t1', 'API_KEY'), value: secret, actor: 'u1' }));
      const row = value(await (subject as SecretStoreContractSubject).rows.read(at('t1', 'API_KEY')));
      const stored =
        JSON.stringify(row) +
        Buffer.concat([row?.wrappedKey ?? Buffer.alloc(0), row?.ciphertext ?? Buffer.alloc(0)]).toString('latin1');
      expect(stored).not.toContain(secret);
      const dump = await subject?.dump?.();
      if (dump) {
        expect(dump.includes(secret)).toBe(false);
        expect(dump.includes(Buffer.from(secret).toString('base64'))).toBe(false);
      }
    });

    it('rotates every wrap to a new key; a keyring without the key in use is refused', async () => {
      for (const name of ['ONE', 'TWO', 'THREE'])
        value(await store.put({ ...at('t1', name), value: `v-${name}`, actor: 'u' }));
      const next = newKey('next-key');
      const rotating = createSecretStore({
        rows: subject?.rows as SecretRowsPort,
        keyring: { current: next, previous: [key] },
      });
      expect(value(await rotating.rotate())).toEqual({ rewrapped: 3 });
      expect(value(await rotating.rotate())).toEqual({ rewrapped: 0 });
      expect(value(await rotating.checkKeys())).toEqual({ keyIds: ['next-key'] });
      const rotated = createSecretStore({
        rows: subject?.rows as SecretRowsPort,
        keyring: { current: next, previous: [] },
      });
      expect([...value(await rotated.resolve('t1', 'production', ['ONE', 'THREE']))]).toEqual([
        ['ONE', 'v-ONE'],
        ['THREE', 'v-THREE'],
      ]);
      const old = await store.checkKeys();
      expect(old.kind === 'err' && old.error).toMatchObject({
        code: 'secret-key-unknown',
        details: { kekIds: ['next-key'] },
      });
      const unreadable = await store.resolve('t1', 'production', ['ONE']);
      expect(unreadable.kind === 'err' && unreadable.error.code).toBe('secret-key-unknown');
    });
  });
}
