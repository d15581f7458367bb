import { execFile } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { testVenvBin } from '@kindgi/test-services/moto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUCKET, errorCode, KEY_ID, rawS3, type S3TestServer, SECRET, startS3Server } from './s3-harness.js';

const REFUSED = 'The authorization mechanism you have provided is not supported. Please use AWS4-HMAC-SHA256.';
const run = promisify(execFile);

let server: S3TestServer;
let dir: string;
beforeAll(async () => {
  server = await startS3Server();
  dir = mkdtempSync(join(tmpdir(), 'kindgi-s3-sigv2-'));
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Signature Version 2: base64 HMAC-SHA1 over verb, Content-MD5, Content-Type, date or expiry, resource. */
function sigV2(verb: string, dateOrExpires: string, resource: string, contentType = ''): string {
  const stringToSign = `${verb}\n\n${contentType}\n${dateOrExpires}\n${resource}`;
  return createHmac('sha1', SECRET).update(stringToSign).digest('base64');
}

async function expectRefused(response: Response): Promise<void> {
  const body = await response.text();
  expect({ status: response.status, code: errorCode(body) }).toEqual({ status: 400, code: 'InvalidRequest' });
  expect(body).toContain(`<Message>${REFUSED}</Message>`);
  expect(response.headers.get('content-type')).toBe('application/xml');
  expect(body).toContain(`<RequestId>${response.headers.get('x-amz-request-id')}</RequestId>`);
}

describe('Signature Version 2 is refused as AWS refuses it', () => {
  it('answers 400 InvalidRequest to an `Authorization: AWS <key>:<signature>` header', async () => {
    const date = new Date().toUTCString();
    const resource = `/s3/${BUCKET}/k`;
    const authorization = `AWS ${KEY_ID}:${sigV2('GET', date, resource)}`;
    await expectRefused(await fetch(`${server.origin}${resource}`, { headers: { authorization, date } }));
    // At the root (ListBuckets) and with a body to drain, the client still reads the answer.
    const root = `AWS ${KEY_ID}:${sigV2('GET', date, '/s3/')}`;
    await expectRefused(await fetch(`${server.endpoint}/`, { headers: { authorization: root, date } }));
    const put = `AWS ${KEY_ID}:${sigV2('PUT', date, resource, 'text/plain')}`;
    const body = 'x'.repeat(200_000);
    await expectRefused(
      await fetch(`${server.origin}${resource}`, {
        method: 'PUT',
        headers: { authorization: put, date, 'content-type': 'text/plain' },
        body,
      }),
    );
  });

  it('answers 400 InvalidRequest to a presigned AWSAccessKeyId/Signature/Expires URL', async () => {
    const expires = String(Math.floor(Date.now() / 1000) + 600);
    const resource = `/s3/${BUCKET}/k`;
    const query = new URLSearchParams({
      AWSAccessKeyId: KEY_ID,
      Signature: sigV2('GET', expires, resource),
      Expires: expires,
    });
    await expectRefused(await fetch(`${server.origin}${resource}?${query}`));
  });

  it('refuses boto3: the URL it presigns by default for a custom endpoint, and a SigV2 header request', async () => {
    const script = [
      'import sys, boto3, botocore.config, botocore.exceptions',
      'endpoint, key_id, secret, bucket = sys.argv[1:5]',
      'def client(**config):',
      "    return boto3.client('s3', endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret,",
      "                        region_name='us-east-1', config=botocore.config.Config(**config))",
      "print(client().generate_presigned_url('get_object', Params={'Bucket': bucket, 'Key': 'k'}))",
      'try:',
      "    client(signature_version='s3', retries={'max_attempts': 1}).get_object(Bucket=bucket, Key='k')",
      'except botocore.exceptions.ClientError as e:',
      "    print(e.response['ResponseMetadata']['HTTPStatusCode'], e.response['Error']['Code'])",
      "    print(e.response['Error']['Message'])",
    ].join('\n');
    const env = {
      PATH: '/usr/bin:/bin',
      HOME: dir,
      AWS_CONFIG_FILE: join(dir, 'none'),
      AWS_EC2_METADATA_DISABLED: 'true',
    };
    const { stdout } = await run(
      join(testVenvBin(), 'python'),
      ['-c', script, server.endpoint, KEY_ID, SECRET, BUCKET],
      {
        env,
      },
    );
    const [url = '', status, message] = stdout.trim().split('\n');
    expect(url).toContain('AWSAccessKeyId=');
    await expectRefused(await fetch(url));
    expect([status, message]).toEqual(['400 InvalidRequest', REFUSED]);
  });

  it('still answers 403 AccessDenied to a request with no credentials at all', async () => {
    const res = await fetch(`${server.endpoint}/${BUCKET}/k`);
    const body = await res.text();
    expect({ status: res.status, code: errorCode(body) }).toEqual({ status: 403, code: 'AccessDenied' });
    expect(body).toContain('<Message>The request carries no SigV4 credentials.</Message>');
  });

  it('takes AWSAccessKeyId/Signature as plain parameters of a SigV4-signed request', async () => {
    const res = await rawS3(server, {
      method: 'GET',
      path: `/s3/${BUCKET}/missing`,
      query: 'AWSAccessKeyId=x&Signature=y',
    });
    expect([res.status, errorCode(res.body)]).toEqual([404, 'NoSuchKey']);
  });
});
