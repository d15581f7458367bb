import { readFile, stat } from 'node:fs/promises';
import { parseEnv } from 'node:util';
import { type SecretError, type SecretMetadata, type SecretStore, secretError } from '@kindgi/bindings';
import { err, messageOf, ok, type Result } from '@kindgi/protocol';

const MAX_FILE_BYTES = 1024 * 1024;
const MAX_PAGE = 1000;
const ACTOR = 'env-file';

interface FileValues {
  values: Map<string, string>;
  updatedAt: string;
}

async function readEnvFile(path: string): Promise<Result<FileValues | undefined, SecretError>> {
  try {
    const info = await stat(path);
    if (info.size > MAX_FILE_BYTES) {
      return err(secretError('secret-unreadable', `${path} is larger than ${MAX_FILE_BYTES} bytes`));
    }
    const parsed = parseEnv(await readFile(path, 'utf8')) as Record<string, string>;
    const values = new Map(Object.entries(parsed).filter(([, value]) => value !== ''));
    return ok({ values, updatedAt: info.mtime.toISOString() });
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === 'ENOENT') return ok(undefined);
    return err(secretError('storage-unavailable', `${path}: ${messageOf(cause)}`));
  }
}

/** Every name the files set (the later file wins), with its value and the time its file last changed. */
async function readAll(
  files: readonly string[],
): Promise<Result<Map<string, { value: string; at: string }>, SecretError>> {
  const merged = new Map<string, { value: string; at: string }>();
  for (const file of files) {
    const read = await readEnvFile(file);
    if (read.kind === 'err') return read;
    for (const [name, value] of read.value?.values ?? []) merged.set(name, { value, at: read.value?.updatedAt ?? '' });
  }
  return ok(merged);
}

/**
 * Tenant secrets kept in dotenv files (`kindgi dev`: the pack's `.env` and `.env.local`), for every tenant,
 * in one env: the `SecretStore` the secrets layer resolves through, so a call gets its declared secrets as
 * it would from the encrypted store. The files are the only way to set one: writes through the API are
 * refused, naming the files.
 */
export function envFileSecretStore(options: { files: readonly string[]; env: string }): SecretStore {
  const { files, env } = options;
  const refused = () =>
    err(
      secretError(
        'secret-env-invalid',
        `Secrets of env "${env}" are read from ${files.join(' and ')}: set them there (kindgi secrets set NAME --env local)`,
      ),
    );
  const metadata = (name: string, at: string): SecretMetadata => ({
    name,
    env,
    version: 1,
    createdAt: at,
    updatedAt: at,
    updatedBy: ACTOR,
  });
  return {
    put: async () => refused(),
    delete: async () => refused(),
    async get(address) {
      if (address.env !== env) return ok(null);
      const all = await readAll(files);
      if (all.kind === 'err') return all;
      const found = all.value.get(address.name);
      return ok(found ? metadata(address.name, found.at) : null);
    },
    async list(_tenantId, options = {}) {
      if (options.env !== undefined && options.env !== env) return ok({ items: [] });
      const all = await readAll(files);
      if (all.kind === 'err') return all;
      const limit = Math.min(MAX_PAGE, Math.max(1, Math.floor(options.limit ?? 100)));
      const names = [...all.value.keys()].sort().filter((name) => options.after === undefined || name > options.after);
      const items = names.slice(0, limit).map((name) => metadata(name, all.value.get(name)?.at ?? ''));
      const last = items.at(-1);
      return ok(names.length > limit && last ? { items, after: last.name } : { items });
    },
    audit: async () => ok({ items: [] }),
    async resolve(_tenantId, wanted, names) {
      const values = new Map<string, string>();
      if (wanted !== env || names.length === 0) return ok(values);
      const all = await readAll(files);
      if (all.kind === 'err') return all;
      for (const name of names) {
        const found = all.value.get(name);
        if (found) values.set(name, found.value);
      }
      return ok(values);
    },
    rotate: async () => ok({ rewrapped: 0 }),
    checkKeys: async () => ok({ keyIds: [] }),
  };
}
