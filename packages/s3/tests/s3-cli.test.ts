import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createInMemoryBlobStorage, s3CliEnvironment } from '@kindgi/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET, KEY_ID, type S3TestServer, SECRET, startS3Server, TENANT } from './s3-harness.js';

// The Debian CLIs, talking only to 127.0.0.1, with HOME and every config file in a temp dir.
const run = promisify(execFile);
const storage = createInMemoryBlobStorage();
let server: S3TestServer;
let rootServer: S3TestServer;
let dir: string;
let env: NodeJS.ProcessEnv;

const NAMES = ['plain.txt', 'with space.txt', 'a+b.txt', '100%.txt', 'ünï cødé 日本.txt'];
const BIG = 'big.bin';
const BIG_BYTES = 12 * 1024 * 1024 + 12345;

beforeAll(async () => {
  server = await startS3Server({ blobStorage: storage });
  rootServer = await startS3Server({ blobStorage: storage, basePath: '' });
  dir = mkdtempSync(join(tmpdir(), 'kindgi-s3-cli-'));
  for (const name of NAMES) writeFileSync(join(dir, name), randomBytes(1000 + name.length));
  writeFileSync(join(dir, BIG), randomBytes(BIG_BYTES));
  writeFileSync(
    join(dir, 'rclone.conf'),
    `[k]\ntype = s3\nprovider = Other\naccess_key_id = ${KEY_ID}\nsecret_access_key = ${SECRET}\nendpoint = ${server.endpoint}\nregion = us-east-1\nforce_path_style = true\n`,
  );
  const hostPort = `127.0.0.1:${rootServer.port}`;
  writeFileSync(
    join(dir, 's3cfg'),
    `[default]\naccess_key = ${KEY_ID}\nsecret_key = ${SECRET}\nhost_base = ${hostPort}\nhost_bucket = ${hostPort}\nuse_https = False\nsignature_v2 = False\n`,
  );
  env = { ...s3CliEnvironment(dir, { keyId: KEY_ID, secret: SECRET }), RCLONE_CONFIG: join(dir, 'rclone.conf') };
});

afterAll(async () => {
  await server?.close();
  await rootServer?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function cli(command: string, args: string[]): Promise<string> {
  const { stdout } = await run(command, args, { env, cwd: dir, maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

async function storedKeys(prefix: string): Promise<string[]> {
  const listed = await storage.listByPrefix(TENANT, BUCKET, { prefix });
  if (listed.kind === 'err') throw new Error(listed.error.message);
  return listed.value.contents.map((meta) => meta.key);
}

async function etagOf(key: string): Promise<string | undefined> {
  const head = await storage.headByKey(TENANT, BUCKET, key);
  return head.kind === 'ok' ? head.value?.etag : undefined;
}

function same(localName: string, downloaded: string): boolean {
  return readFileSync(join(dir, localName)).equals(readFileSync(join(dir, downloaded)));
}

const ALL = [...NAMES, BIG];

describe('Debian CLIs against the S3 surface', () => {
  it('aws (awscli v2) cp up and down, ls, multipart above 8 MiB, rm, rm --recursive', {
    timeout: 180_000,
  }, async () => {
    const aws = (...args: string[]) =>
      cli('/usr/bin/aws', ['--endpoint-url', server.endpoint, '--no-cli-pager', ...args]);
    for (const name of ALL) await aws('s3', 'cp', '--only-show-errors', join(dir, name), `s3://${BUCKET}/aws/${name}`);
    expect((await storedKeys('aws/')).sort()).toEqual(ALL.map((n) => `aws/${n}`).sort());
    expect(await etagOf(`aws/${BIG}`)).toMatch(/^[0-9a-f]{32}-2$/);
    const listing = await aws('s3', 'ls', `s3://${BUCKET}/aws/`);
    for (const name of ALL) expect(listing).toContain(name);
    for (const name of ALL) {
      await aws('s3', 'cp', '--only-show-errors', `s3://${BUCKET}/aws/${name}`, join(dir, `aws-back-${name}`));
      expect(same(name, `aws-back-${name}`)).toBe(true);
    }
    await aws('s3', 'rm', '--only-show-errors', `s3://${BUCKET}/aws/${NAMES[1]}`);
    expect(await storedKeys('aws/')).toHaveLength(ALL.length - 1);
    // The rest in one DeleteObjects call.
    await aws('s3', 'rm', '--only-show-errors', '--recursive', `s3://${BUCKET}/aws/`);
    expect(await storedKeys('aws/')).toEqual([]);
  });

  it('rclone copyto, lsf, check, multipart above its cutoff, deletefile', { timeout: 180_000 }, async () => {
    const rclone = (...args: string[]) =>
      cli('/usr/bin/rclone', [
        '--retries',
        '1',
        '--low-level-retries',
        '1',
        '--s3-upload-cutoff',
        '5M',
        '--s3-chunk-size',
        '5M',
        ...args,
      ]);
    for (const name of ALL) await rclone('copyto', join(dir, name), `k:${BUCKET}/rclone/${name}`);
    expect((await storedKeys('rclone/')).sort()).toEqual(ALL.map((n) => `rclone/${n}`).sort());
    expect(await etagOf(`rclone/${BIG}`)).toMatch(/^[0-9a-f]{32}-3$/);
    const listing = (await rclone('lsf', `k:${BUCKET}/rclone/`)).split('\n').filter(Boolean);
    expect(listing.sort()).toEqual([...ALL].sort());
    for (const name of ALL) {
      await rclone('copyto', `k:${BUCKET}/rclone/${name}`, join(dir, `rclone-back-${name}`));
      expect(same(name, `rclone-back-${name}`)).toBe(true);
    }
    for (const name of ALL) await rclone('deletefile', `k:${BUCKET}/rclone/${name}`);
    expect(await storedKeys('rclone/')).toEqual([]);
  });

  it('s3cmd put, ls, get, multipart, del (endpoint served at /)', { timeout: 180_000 }, async () => {
    const s3cmd = (...args: string[]) => cli('/usr/bin/s3cmd', ['-c', join(dir, 's3cfg'), '--no-progress', ...args]);
    for (const name of ALL) {
      await s3cmd('put', '--multipart-chunk-size-mb=5', join(dir, name), `s3://${BUCKET}/s3cmd/${name}`);
    }
    expect((await storedKeys('s3cmd/')).sort()).toEqual(ALL.map((n) => `s3cmd/${n}`).sort());
    expect(await etagOf(`s3cmd/${BIG}`)).toMatch(/^[0-9a-f]{32}-3$/);
    const listing = await s3cmd('ls', `s3://${BUCKET}/s3cmd/`);
    for (const name of ALL) expect(listing).toContain(`s3://${BUCKET}/s3cmd/${name}`);
    for (const name of ALL) {
      await s3cmd('get', '--force', `s3://${BUCKET}/s3cmd/${name}`, join(dir, `s3cmd-back-${name}`));
      expect(same(name, `s3cmd-back-${name}`)).toBe(true);
    }
    for (const name of ALL) await s3cmd('del', `s3://${BUCKET}/s3cmd/${name}`);
    expect(await storedKeys('s3cmd/')).toEqual([]);
  });
});
