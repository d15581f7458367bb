import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HeadObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanupTempDirs, makeTempDir, stopAllServers } from './harness.js';
import {
  type ClientRun,
  clientEnvironment,
  embeddedTopology,
  runClient,
  runPythonClient,
  type S3Target,
  scaledOutTopology,
  type Topology,
  VENV_PYTHON,
} from './s3-clients-harness.js';

// Clients nobody here wrote (pyarrow's C++ S3 filesystem, boto3, the Debian aws CLI and rclone, all with
// their default settings) against the real server process, in both storage topologies. What they must see
// is what AWS S3 documents.
const AVAILABLE = existsSync(VENV_PYTHON);
const IN_CI = Boolean(process.env.CI);
const SKIP = !AVAILABLE && !IN_CI;
if (SKIP) {
  process.stderr.write(
    `s3-real-clients.test.ts skipped: ${VENV_PYTHON} is missing (create the venv as .ci/run does, or set KINDGI_TEST_VENV)\n`,
  );
}

const MIB = 1024 * 1024;
const BOTO3_CASES = [
  'put-checksum',
  'multipart-composite',
  'multipart-full-object',
  'copy-object',
  'managed-copy',
  'buckets',
  'sigv2',
] as const;

function expectSuccess(run: ClientRun): void {
  expect(run.code, run.output.slice(-8_000)).toBe(0);
}

afterAll(async () => {
  await stopAllServers();
  cleanupTempDirs();
});

describe.skipIf(SKIP).each([embeddedTopology(), scaledOutTopology()])(
  'real S3 clients, $name',
  (topology: Topology) => {
    let target: S3Target | undefined;
    beforeAll(async () => {
      target = await topology.start();
    }, 120_000);
    afterAll(() => topology.stop(), 60_000);

    /** A client's working folder with its hermetic environment; `prefix` keeps each case's keys apart. */
    function workspace(prefix: string): { dir: string; env: Record<string, string>; s3: S3Target } {
      if (target === undefined) throw new Error(`the ${topology.name} server did not start`);
      const dir = makeTempDir('s3-client');
      return { dir, env: clientEnvironment(dir, target, prefix), s3: target };
    }

    it('pyarrow writes a partitioned Parquet dataset (one file in parts) and reads it back equal', async () => {
      const { dir, env } = workspace('pyarrow/');
      expectSuccess(await runPythonClient('pyarrow_dataset.py', [], { env, cwd: dir }));
    }, 150_000);

    it.each(BOTO3_CASES)(
      'boto3: %s',
      async (name) => {
        const { dir, env } = workspace(`boto3/${name}/`);
        expectSuccess(await runPythonClient('boto3_checks.py', [name], { env, cwd: dir }));
      },
      150_000,
    );

    it('aws s3 mv: up, within the bucket (CopyObject, UploadPartCopy above 8 MiB) and down', async () => {
      const { dir, env, s3 } = workspace('aws/');
      const bucket = s3.bucket;
      const aws = async (...args: string[]) => {
        const run = await runClient('/usr/bin/aws', ['--endpoint-url', s3.endpoint, '--no-cli-pager', ...args], {
          env,
          cwd: dir,
        });
        expectSuccess(run);
        return run.stdout;
      };
      const keys = async (prefix: string) => {
        const listed = await aws(
          's3api',
          'list-objects-v2',
          '--bucket',
          bucket,
          '--prefix',
          prefix,
          '--output',
          'json',
        );
        const page = listed.trim() === '' ? {} : (JSON.parse(listed) as { Contents?: { Key: string }[] });
        return (page.Contents ?? []).map((item) => item.Key).sort();
      };
      const files = { 'small.txt': randomBytes(1000), 'big.bin': randomBytes(9 * MIB + 17) };
      mkdirSync(join(dir, 'up'));
      for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, 'up', name), bytes);

      await aws('s3', 'mv', '--only-show-errors', '--recursive', join(dir, 'up'), `s3://${bucket}/aws/first/`);
      for (const name of Object.keys(files)) expect(existsSync(join(dir, 'up', name))).toBe(false);
      expect(await keys('aws/')).toEqual(['aws/first/big.bin', 'aws/first/small.txt']);

      await aws(
        's3',
        'mv',
        '--only-show-errors',
        '--recursive',
        `s3://${bucket}/aws/first/`,
        `s3://${bucket}/aws/second/`,
      );
      expect(await keys('aws/')).toEqual(['aws/second/big.bin', 'aws/second/small.txt']);

      await aws('s3', 'mv', '--only-show-errors', '--recursive', `s3://${bucket}/aws/second/`, join(dir, 'down'));
      expect(await keys('aws/')).toEqual([]);
      for (const [name, bytes] of Object.entries(files))
        expect(readFileSync(join(dir, 'down', name)).equals(bytes)).toBe(true);
    }, 150_000);

    it('rclone sync after a modification time changed but not the content: exit 0, deletions done', async () => {
      const { dir, env, s3 } = workspace('rclone/');
      const remote = `k:${s3.bucket}/rclone/sync`;
      const conf = [
        '[k]',
        'type = s3',
        'provider = Other',
        `access_key_id = ${s3.accessKeyId}`,
        `secret_access_key = ${s3.secretKey}`,
        `endpoint = ${s3.endpoint}`,
        'region = us-east-1',
        'force_path_style = true',
      ];
      writeFileSync(join(dir, 'rclone.conf'), `${conf.join('\n')}\n`);
      const rclone = (...args: string[]) =>
        runClient(
          '/usr/bin/rclone',
          ['--config', join(dir, 'rclone.conf'), '--retries', '1', '--low-level-retries', '1', ...args],
          { env, cwd: dir },
        );
      const local = join(dir, 'local');
      mkdirSync(join(local, 'sub'), { recursive: true });
      for (const name of ['touched.txt', 'deleted.txt', 'kept.txt', 'sub/nested.txt']) {
        writeFileSync(join(local, name), randomBytes(2000));
      }
      expectSuccess(await rclone('sync', local, remote));

      // Same size and content, another time: rclone updates the remote's mtime (a copy onto itself) instead
      // of uploading; it deletes on the remote only when nothing else failed.
      const touchedAt = new Date('2021-03-04T05:06:07Z');
      utimesSync(join(local, 'touched.txt'), touchedAt, touchedAt);
      rmSync(join(local, 'deleted.txt'));
      expectSuccess(await rclone('sync', '-v', local, remote));

      const listed = await rclone('lsjson', '-R', '--files-only', remote);
      expectSuccess(listed);
      const entries = JSON.parse(listed.stdout) as {
        Path: string;
        ModTime: string;
      }[];
      expect(entries.map((entry) => entry.Path).sort()).toEqual(['kept.txt', 'sub/nested.txt', 'touched.txt']);
      const touched = entries.find((entry) => entry.Path === 'touched.txt')!;
      expect(new Date(touched.ModTime).getTime()).toBe(touchedAt.getTime());
    }, 150_000);

    it('@aws-sdk/client-s3: a CRC64NVME header is verified, kept and answered with its type', async () => {
      const { s3 } = workspace('sdk/');
      const client = new S3Client({
        endpoint: s3.endpoint,
        forcePathStyle: true,
        region: 'us-east-1',
        credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretKey },
        maxAttempts: 1,
      });
      try {
        const body = Buffer.from('123456789');
        // The published CRC-64/NVME check value of "123456789", 0xAE8B14860A799888, in S3's base64 form.
        const right = Buffer.from('ae8b14860a799888', 'hex').toString('base64');
        const key = 'sdk/crc64nvme.txt';
        await client.send(new PutObjectCommand({ Bucket: s3.bucket, Key: key, Body: body, ChecksumCRC64NVME: right }));
        const head = await client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: key, ChecksumMode: 'ENABLED' }));
        expect(head).toMatchObject({ ChecksumCRC64NVME: right, ChecksumType: 'FULL_OBJECT' });
        const wrong = Buffer.from('0000000000000001', 'hex').toString('base64');
        const refused = client.send(
          new PutObjectCommand({ Bucket: s3.bucket, Key: 'sdk/wrong.txt', Body: body, ChecksumCRC64NVME: wrong }),
        );
        await expect(refused).rejects.toMatchObject({ name: 'BadDigest', $metadata: { httpStatusCode: 400 } });
        await expect(client.send(new HeadObjectCommand({ Bucket: s3.bucket, Key: 'sdk/wrong.txt' }))).rejects.toThrow();
      } finally {
        client.destroy();
      }
    }, 60_000);
  },
);
