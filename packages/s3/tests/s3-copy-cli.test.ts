import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { BlobMeta } from '@kindgi/bindings';
import { createInMemoryBlobStorage, s3CliEnvironment } from '@kindgi/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET, KEY_ID, type S3TestServer, SECRET, startS3Server, TENANT } from './s3-harness.js';

// The Debian CLIs whose moves and syncs need CopyObject / UploadPartCopy, talking only to 127.0.0.1.
const run = promisify(execFile);
const storage = createInMemoryBlobStorage();
let server: S3TestServer;
let dir: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  server = await startS3Server({ blobStorage: storage });
  dir = mkdtempSync(join(tmpdir(), 'kindgi-s3-copy-cli-'));
  writeFileSync(
    join(dir, 'rclone.conf'),
    `[k]\ntype = s3\nprovider = Other\naccess_key_id = ${KEY_ID}\nsecret_access_key = ${SECRET}\nendpoint = ${server.endpoint}\nregion = us-east-1\nforce_path_style = true\n`,
  );
  env = { ...s3CliEnvironment(dir, { keyId: KEY_ID, secret: SECRET }), RCLONE_CONFIG: join(dir, 'rclone.conf') };
});

afterAll(async () => {
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function cli(command: string, args: string[]): Promise<{ stdout: string; stderr: string }> {
  return run(command, args, { env, cwd: dir, maxBuffer: 16 * 1024 * 1024 });
}

async function stored(key: string): Promise<BlobMeta | null> {
  const head = await storage.headByKey(TENANT, BUCKET, key);
  if (head.kind === 'err') throw new Error(head.error.message);
  return head.value;
}

async function storedBytes(key: string): Promise<Buffer> {
  const read = await storage.getByKey(TENANT, BUCKET, key);
  if (read.kind === 'err') throw new Error(read.error.message);
  return Buffer.from(await new Response(read.value.stream).arrayBuffer());
}

describe('Debian CLIs that copy on the server', () => {
  it('aws s3 mv: CopyObject below the multipart threshold, UploadPartCopy above it', { timeout: 120_000 }, async () => {
    const aws = (...args: string[]) =>
      cli('/usr/bin/aws', ['--endpoint-url', server.endpoint, '--no-cli-pager', '--only-show-errors', ...args]);
    const files: Array<[string, Buffer]> = [
      ['small ünï.txt', randomBytes(2000)],
      ['big.bin', randomBytes(12 * 1024 * 1024 + 99)],
    ];
    for (const [name, data] of files) {
      writeFileSync(join(dir, name), data);
      await aws('s3', 'cp', join(dir, name), `s3://${BUCKET}/mv/from/${name}`);
    }
    await aws('s3', 'mv', `s3://${BUCKET}/mv/from/${files[0]![0]}`, `s3://${BUCKET}/mv/to/${files[0]![0]}`);
    // Above 8 MiB the CLI copies in parts, with its default --copy-props: it reads the source's tags
    // (GetObjectTagging) and metadata first, and sets them on the new object.
    await aws('s3', 'mv', `s3://${BUCKET}/mv/from/${files[1]![0]}`, `s3://${BUCKET}/mv/to/${files[1]![0]}`);
    for (const [name, data] of files) {
      expect(await stored(`mv/from/${name}`)).toBeNull();
      expect((await storedBytes(`mv/to/${name}`)).equals(data)).toBe(true);
    }
    expect((await stored('mv/to/big.bin'))?.etag).toMatch(/-2$/);
  });

  it('rclone sync after only the local mtime changed: metadata updated by a self-copy', {
    timeout: 120_000,
  }, async () => {
    const local = join(dir, 'sync');
    mkdirSync(local);
    writeFileSync(join(local, 'a.txt'), randomBytes(3000));
    writeFileSync(join(local, 'with space ü.bin'), randomBytes(6 * 1024 * 1024 + 5));
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
    await rclone('sync', local, `k:${BUCKET}/sync`);
    const before = await stored('sync/a.txt');
    const when = new Date('2021-02-03T04:05:06.789Z');
    for (const name of ['a.txt', 'with space ü.bin']) utimesSync(join(local, name), when, when);
    const { stderr } = await rclone('sync', '-v', local, `k:${BUCKET}/sync`);
    expect(stderr).toContain('Updated modification time');
    expect(stderr).not.toContain('ERROR');
    for (const name of ['a.txt', 'with space ü.bin']) {
      const meta = await stored(`sync/${name}`);
      expect(Number(meta?.metadata.mtime) * 1000).toBeCloseTo(when.getTime(), 0);
      expect((await storedBytes(`sync/${name}`)).equals(readFileSync(join(local, name)))).toBe(true);
    }
    const after = await stored('sync/a.txt');
    expect(after?.etag).toBe(before?.etag);
    expect(after?.blobId).not.toBe(before?.blobId);
    // A third sync finds nothing to do.
    const again = await rclone('sync', '-v', local, `k:${BUCKET}/sync`);
    expect(again.stderr).not.toContain('Updated modification time');
  });
});
