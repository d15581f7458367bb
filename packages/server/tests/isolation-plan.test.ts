import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { accessibleTo } from '../src/isolation/access.js';
import { resolvePackUser } from '../src/isolation/pack-user.js';
import { type IsolationInput, planPackIsolation } from '../src/isolation/plan.js';
import { configFileSecrets, environmentSecrets } from '../src/isolation/secrets.js';

const root = mkdtempSync(join(tmpdir(), 'kindgi-isolation-plan-'));
chmodSync(root, 0o755);
afterAll(() => rmSync(root, { recursive: true, force: true }));
const passwd = join(root, 'passwd');
writeFileSync(passwd, 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n');
const nobody = { uid: 65534, gid: 65534 };

function input(extra: Partial<IsolationInput>): IsolationInput {
  return {
    packUser: undefined,
    serverUid: 1000,
    configPath: undefined,
    fileSecrets: [],
    environmentSecrets: [],
    dataDir: join(root, 'data'),
    development: false,
    packDirs: [],
    command: [],
    passwdPath: passwd,
    ...extra,
  };
}

describe('resolvePackUser', () => {
  it('reads a name from passwd, takes uid[:gid] as is, and names a missing user', () => {
    expect(resolvePackUser('nobody', passwd)).toEqual({
      kind: 'ok',
      value: { name: 'nobody', uid: 65534, gid: 65534 },
    });
    expect(resolvePackUser('1234', passwd)).toMatchObject({ kind: 'ok', value: { uid: 1234, gid: 1234 } });
    expect(resolvePackUser('1234:99', passwd)).toMatchObject({ kind: 'ok', value: { uid: 1234, gid: 99 } });
    expect(resolvePackUser('ghost', passwd)).toEqual({
      kind: 'err',
      error: `packUser: no user 'ghost' in ${passwd} (give an existing user or uid:gid)`,
    });
  });
});

describe('accessibleTo', () => {
  it('follows the mode bits of the file and of every folder above it', () => {
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o755);
    writeFileSync(join(open, 'public.txt'), 'x', { mode: 0o644 });
    writeFileSync(join(open, 'private.txt'), 'x', { mode: 0o600 });
    expect(accessibleTo(join(open, 'public.txt'), nobody, 'read')).toBe(true);
    expect(accessibleTo(join(open, 'private.txt'), nobody, 'read')).toBe(false);
    chmodSync(open, 0o700);
    expect(accessibleTo(join(open, 'public.txt'), nobody, 'read')).toBe(false);
    chmodSync(open, 0o711);
    expect(accessibleTo(join(open, 'public.txt'), nobody, 'read')).toBe(true);
    expect(accessibleTo(open, nobody, 'list')).toBe(false);
    expect(accessibleTo(join(open, 'missing'), nobody, 'read')).toBe(false);
  });
});

describe('planPackIsolation', () => {
  it('a server that is not root keeps packs as itself, lists what they can read, refuses another user', () => {
    const kept = planPackIsolation(
      input({ configPath: '/etc/kindgi.json', fileSecrets: ['tokens'], environmentSecrets: ['KINDGI_SERVER_TOKENS'] }),
    );
    expect(kept.kind).toBe('ok');
    if (kept.kind !== 'ok') return;
    expect(kept.value.user).toBeUndefined();
    expect(kept.value.exposures).toEqual([
      "the server's environment block (/proc/<server pid>/environ): KINDGI_SERVER_TOKENS",
      'the config file /etc/kindgi.json: tokens',
      `the data directory ${join(root, 'data')} (every tenant's objects and runs, the cursor secret, development credentials)`,
    ]);
    expect(planPackIsolation(input({ packUser: 'nobody' }))).toEqual({
      kind: 'err',
      error: [
        'packUser: the server runs as uid 1000 and cannot start pack services as nobody (uid 65534); run it as root, or leave packUser unset',
      ],
    });
  });

  it('a root server defaults to nobody, and checks the pack and the command files for that user', () => {
    const pack = join(root, 'pack');
    mkdirSync(pack, { mode: 0o755 });
    chmodSync(pack, 0o755);
    const planned = planPackIsolation(input({ serverUid: 0, packDirs: [pack], command: [process.execPath] }));
    expect(planned).toEqual({ kind: 'ok', value: { user: { name: 'nobody', ...nobody }, exposures: [] } });
    chmodSync(pack, 0o700);
    const refused = planPackIsolation(input({ serverUid: 0, packDirs: [pack] }));
    expect(refused.kind).toBe('err');
    // A development deployment keeps such packs as root, saying why; a chosen packUser never falls back.
    const development = planPackIsolation(input({ serverUid: 0, packDirs: [pack], development: true }));
    expect(development).toMatchObject({ kind: 'ok', value: { fellBack: [expect.stringContaining(pack)] } });
    if (development.kind === 'ok') expect(development.value.user).toBeUndefined();
    const chosen = planPackIsolation(input({ serverUid: 0, packDirs: [pack], development: true, packUser: 'nobody' }));
    expect(chosen.kind).toBe('err');
  });
});

describe('where secrets sit', () => {
  it('names the secret fields of a config file and the secret variables of an environment', () => {
    expect(
      configFileSecrets({
        tokens: [{}],
        s3Credentials: [],
        database: { url: 'postgres://x' },
        blobs: { kind: 's3', secretAccessKey: 'k' },
        metrics: { enabled: true },
        port: 1,
      }),
    ).toEqual(['tokens', 'database.url', 'blobs.secretAccessKey']);
    expect(
      environmentSecrets({
        PATH: '/bin',
        KINDGI_SERVER_DATABASE_URL: 'x',
        PGPASSWORD: 'y',
        GITHUB_TOKEN: 'z',
        EMPTY_TOKEN: '',
      }),
    ).toEqual(['GITHUB_TOKEN', 'KINDGI_SERVER_DATABASE_URL', 'PGPASSWORD']);
  });
});
