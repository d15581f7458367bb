import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import {
  GetBucketLocationCommand,
  GetBucketVersioningCommand,
  ListBucketsCommand,
  type ListBucketsCommandInput,
  PutBucketVersioningCommand,
  paginateListBuckets,
} from '@aws-sdk/client-s3';
import { s3CliEnvironment } from '@kindgi/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listBuckets, type VisibleBucket } from '../src/ops/list-buckets.js';
import {
  BUCKET,
  errorCode,
  KEY_ID,
  OTHER_KEY_ID,
  rawS3,
  type S3TestServer,
  SECRET,
  startS3Server,
  TENANT,
} from './s3-harness.js';
import { useSdkServer } from './s3-sdk-harness.js';

const run = promisify(execFile);
const NS = 'xmlns="http://s3.amazonaws.com/doc/2006-03-01/"';
const START = new Date('2026-03-04T05:06:07.000Z');

describe('ListBuckets, GetBucketLocation and GetBucketVersioning with @aws-sdk/client-s3', () => {
  // The surface reads its clock first when it is built: that instant is the bucket's creation date.
  let built: Date | undefined;
  const clock = () => {
    const now = new Date();
    built ??= now;
    return now;
  };
  const { client } = useSdkServer('in-memory', { clock });
  const sdk = () => client();

  it('lists the credential’s one bucket with its owner, creation date and region', async () => {
    const listed = await sdk().send(new ListBucketsCommand({}));
    expect(built).toBeInstanceOf(Date);
    expect(listed.Buckets).toEqual([{ Name: BUCKET, CreationDate: built, BucketRegion: 'us-east-1' }]);
    expect(listed.Owner).toEqual({ ID: TENANT, DisplayName: TENANT });
    expect(listed.ContinuationToken).toBeUndefined();
  });

  it('filters by prefix and bucket-region, honours max-buckets and pages to the end', async () => {
    const s3 = sdk();
    const names = async (input: ListBucketsCommandInput) =>
      ((await s3.send(new ListBucketsCommand(input))).Buckets ?? []).map((bucket) => bucket.Name);
    expect(await names({ Prefix: BUCKET.slice(0, 3) })).toEqual([BUCKET]);
    expect(await names({ Prefix: 'zz' })).toEqual([]);
    expect(await names({ BucketRegion: 'us-east-1', MaxBuckets: 1 })).toEqual([BUCKET]);
    expect(await names({ BucketRegion: 'eu-west-1' })).toEqual([]);
    const pages = [];
    for await (const page of paginateListBuckets({ client: s3, pageSize: 1 }, {})) pages.push(page);
    expect(pages.flatMap((page) => page.Buckets?.map((bucket) => bucket.Name))).toEqual([BUCKET]);
    expect((await s3.send(new ListBucketsCommand({ Prefix: 'b' }))).Prefix).toBe('b');
  });

  it('refuses max-buckets outside 1..10000 and a continuation token it never issued', async () => {
    for (const input of [{ MaxBuckets: 0 }, { MaxBuckets: 10_001 }, { ContinuationToken: 'not-ours' }]) {
      await expect(sdk().send(new ListBucketsCommand(input))).rejects.toMatchObject({
        name: 'InvalidArgument',
        $metadata: { httpStatusCode: 400 },
      });
    }
  });

  it('GetBucketLocation answers an empty LocationConstraint in us-east-1', async () => {
    const location = await sdk().send(new GetBucketLocationCommand({ Bucket: BUCKET }));
    expect(location.LocationConstraint ?? '').toBe('');
  });

  it('GetBucketVersioning answers no Status (never versioned); PutBucketVersioning is 501', async () => {
    const versioning = await sdk().send(new GetBucketVersioningCommand({ Bucket: BUCKET }));
    expect(versioning.Status).toBeUndefined();
    expect(versioning.MFADelete).toBeUndefined();
    const enable = new PutBucketVersioningCommand({ Bucket: BUCKET, VersioningConfiguration: { Status: 'Enabled' } });
    await expect(sdk().send(enable)).rejects.toMatchObject({
      name: 'NotImplemented',
      $metadata: { httpStatusCode: 501 },
    });
  });
});

describe('another configured region', () => {
  const { client } = useSdkServer('in-memory', { regions: ['us-east-1', 'eu-west-1'] });

  it('GetBucketLocation names it and ListBuckets reports it as the bucket region', async () => {
    const s3 = client({ region: 'eu-west-1' });
    const location = await s3.send(new GetBucketLocationCommand({ Bucket: BUCKET }));
    expect(location.LocationConstraint).toBe('eu-west-1');
    const listed = await s3.send(new ListBucketsCommand({ BucketRegion: 'eu-west-1' }));
    expect(listed.Buckets?.map((bucket) => [bucket.Name, bucket.BucketRegion])).toEqual([[BUCKET, 'eu-west-1']]);
  });
});

describe('the surface root on the wire', () => {
  let server: S3TestServer;
  let rootServer: S3TestServer;
  let dir: string;
  beforeAll(async () => {
    server = await startS3Server();
    rootServer = await startS3Server({ basePath: '' });
    dir = mkdtempSync(join(tmpdir(), 'kindgi-s3-buckets-'));
  });
  afterAll(async () => {
    await server.close();
    await rootServer.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers ListAllMyBucketsResult at /s3, /s3/ and (basePath "") at /', async () => {
    for (const [target, path] of [
      [server, '/s3'],
      [server, '/s3/'],
      [rootServer, '/'],
    ] as const) {
      const res = await rawS3(target, { method: 'GET', path });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/xml');
      expect(res.headers.get('x-amz-request-id')).toMatch(/^[0-9A-F]{16}$/);
      const xml = res.body.toString();
      expect(xml).toMatch(new RegExp(`^<\\?xml [^>]+\\?>\\n<ListAllMyBucketsResult ${NS}><Buckets><Bucket>`));
      expect(xml).toContain(`<Name>${BUCKET}</Name>`);
      expect(xml).toContain(`<Owner><ID>${TENANT}</ID><DisplayName>${TENANT}</DisplayName></Owner>`);
    }
  });

  it('lists only the bucket of the credential that signed', async () => {
    const res = await rawS3(server, { method: 'GET', path: '/s3/', keyId: OTHER_KEY_ID });
    expect(res.body.toString()).toContain('<Name>other-bucket</Name>');
    expect(res.body.toString()).not.toContain(`<Name>${BUCKET}</Name>`);
  });

  it('verifies the signature like every other request', async () => {
    const unsigned = await fetch(`${server.endpoint}/`);
    expect([unsigned.status, errorCode(await unsigned.text())]).toEqual([403, 'AccessDenied']);
    const wrong = await rawS3(server, { method: 'GET', path: '/s3/', secret: 'not-the-secret' });
    expect([wrong.status, errorCode(wrong.body)]).toEqual([403, 'SignatureDoesNotMatch']);
  });

  it('the Debian CLIs list the bucket and read its versioning and location', { timeout: 60_000 }, async () => {
    const env = {
      ...s3CliEnvironment(dir, { keyId: KEY_ID, secret: SECRET }),
      RCLONE_CONFIG: join(dir, 'rclone.conf'),
    };
    writeFileSync(
      join(dir, 'rclone.conf'),
      `[k]\ntype = s3\nprovider = Other\naccess_key_id = ${KEY_ID}\nsecret_access_key = ${SECRET}\nendpoint = ${server.endpoint}\nregion = us-east-1\nforce_path_style = true\n`,
    );
    const hostPort = `127.0.0.1:${rootServer.port}`;
    writeFileSync(
      join(dir, 's3cfg'),
      `[default]\naccess_key = ${KEY_ID}\nsecret_key = ${SECRET}\nhost_base = ${hostPort}\nhost_bucket = ${hostPort}\nuse_https = False\nsignature_v2 = False\nbucket_location = us-east-1\n`,
    );
    const cli = async (command: string, ...args: string[]) => (await run(command, args, { env, cwd: dir })).stdout;
    const aws = (...args: string[]) =>
      cli('/usr/bin/aws', '--endpoint-url', server.endpoint, '--no-cli-pager', ...args);
    expect(await aws('s3', 'ls')).toMatch(new RegExp(`^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d ${BUCKET}\\n$`));
    expect(JSON.parse((await aws('s3api', 'list-buckets', '--output', 'json')) || '{}')).toMatchObject({
      Buckets: [{ Name: BUCKET }],
      Owner: { ID: TENANT },
    });
    expect((await aws('s3api', 'get-bucket-versioning', '--bucket', BUCKET, '--output', 'json')).trim()).toBe('');
    const location = await aws('s3api', 'get-bucket-location', '--bucket', BUCKET, '--output', 'json');
    expect(JSON.parse(location)).toEqual({ LocationConstraint: null });
    expect(await cli('/usr/bin/rclone', 'lsd', 'k:')).toContain(` ${BUCKET}\n`);
    expect(await cli('/usr/bin/s3cmd', '-c', join(dir, 's3cfg'), 'ls')).toContain(`s3://${BUCKET}\n`);
  });

  it('keeps 400 InvalidRequest for other methods at the root', async () => {
    for (const method of ['PUT', 'POST', 'DELETE']) {
      const res = await rawS3(server, { method, path: '/s3/' });
      expect([res.status, errorCode(res.body)]).toEqual([400, 'InvalidRequest']);
    }
  });

  it('answers GetBucketVersioning and GetBucketLocation as AWS does for us-east-1', async () => {
    const versioning = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'versioning=' });
    expect(versioning.status).toBe(200);
    expect(versioning.body.toString()).toMatch(
      new RegExp(`<VersioningConfiguration ${NS}></VersioningConfiguration>$`),
    );
    const location = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'location=' });
    expect(location.body.toString()).toMatch(new RegExp(`<LocationConstraint ${NS}></LocationConstraint>$`));
  });

  it('still answers 501 for ?versioning on an object and for PUT ?versioning', async () => {
    const onObject = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/k`, query: 'versioning=' });
    expect([onObject.status, errorCode(onObject.body)]).toEqual([501, 'NotImplemented']);
    const put = await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}`, query: 'versioning=' });
    expect([put.status, errorCode(put.body)]).toEqual([501, 'NotImplemented']);
  });
});

describe('ListBuckets paging over several visible buckets', () => {
  const buckets: VisibleBucket[] = ['gamma', 'alpha', 'beta', 'alpine'].map((name) => ({
    name,
    region: name === 'beta' ? 'eu-west-1' : 'us-east-1',
    createdAt: START.toISOString(),
  }));
  const list = async (query: Record<string, string>) => {
    const outcome = listBuckets({ buckets, tenantId: TENANT, query: new Map(Object.entries(query)) });
    if (!(outcome instanceof Response)) throw new Error(`${outcome.code}: ${outcome.message}`);
    const xml = await outcome.text();
    const names = [...xml.matchAll(/<Name>([^<]*)<\/Name>/g)].map((m) => m[1]);
    return { names, token: /<ContinuationToken>([^<]*)</.exec(xml)?.[1] };
  };

  it('pages in name order with continuation tokens, filtered by prefix and region', async () => {
    expect(await list({})).toEqual({ names: ['alpha', 'alpine', 'beta', 'gamma'], token: undefined });
    const first = await list({ 'max-buckets': '2' });
    expect(first.names).toEqual(['alpha', 'alpine']);
    const second = await list({ 'max-buckets': '2', 'continuation-token': first.token ?? '' });
    expect(second).toEqual({ names: ['beta', 'gamma'], token: undefined });
    expect((await list({ prefix: 'al' })).names).toEqual(['alpha', 'alpine']);
    expect((await list({ 'bucket-region': 'eu-west-1' })).names).toEqual(['beta']);
    const filtered = await list({ prefix: 'al', 'max-buckets': '1' });
    expect(filtered.names).toEqual(['alpha']);
    expect(await list({ prefix: 'al', 'continuation-token': filtered.token ?? '' })).toEqual({
      names: ['alpine'],
      token: undefined,
    });
  });
});
