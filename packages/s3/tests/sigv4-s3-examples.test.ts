import type { S3CredentialBinding } from '@kindgi/bindings';
import { describe, expect, it } from 'vitest';
import { findBodyFailure } from '../src/errors.js';
import { AwsChunkedDecoder, type SigV4Request, verifySigV4 } from '../src/index.js';

// The worked examples of the S3 SigV4 documentation ("Examples: Signature Calculations").
const ACCESS_KEY = 'AKIAIOSFODNN7EXAMPLE';
const SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const NOW = new Date(Date.UTC(2013, 4, 24, 0, 0, 0));
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
const credentials: S3CredentialBinding = {
  resolve: async (key) => (key === ACCESS_KEY ? { secretKey: SECRET, tenantId: 't1', bucket: 'examplebucket' } : null),
};

function authz(signedHeaders: string, signature: string): string {
  return `AWS4-HMAC-SHA256 Credential=${ACCESS_KEY}/20130524/us-east-1/s3/aws4_request,SignedHeaders=${signedHeaders},Signature=${signature}`;
}

const examples: Record<string, SigV4Request> = {
  'GET Object with Range': {
    method: 'GET',
    rawPath: '/test.txt',
    rawQuery: '',
    headers: [
      ['host', 'examplebucket.s3.amazonaws.com'],
      ['range', 'bytes=0-9'],
      ['x-amz-content-sha256', EMPTY],
      ['x-amz-date', '20130524T000000Z'],
      [
        'authorization',
        authz(
          'host;range;x-amz-content-sha256;x-amz-date',
          'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
        ),
      ],
    ],
  },
  'PUT Object': {
    method: 'PUT',
    rawPath: '/test%24file.text',
    rawQuery: '',
    headers: [
      ['host', 'examplebucket.s3.amazonaws.com'],
      ['date', 'Fri, 24 May 2013 00:00:00 GMT'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
      ['x-amz-content-sha256', '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072'],
      [
        'authorization',
        authz(
          'date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class',
          '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
        ),
      ],
    ],
  },
  'GET Bucket Lifecycle': {
    method: 'GET',
    rawPath: '/',
    rawQuery: 'lifecycle',
    headers: [
      ['host', 'examplebucket.s3.amazonaws.com'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-content-sha256', EMPTY],
      [
        'authorization',
        authz(
          'host;x-amz-content-sha256;x-amz-date',
          'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543',
        ),
      ],
    ],
  },
  'GET Bucket (List Objects)': {
    method: 'GET',
    rawPath: '/',
    rawQuery: 'max-keys=2&prefix=J',
    headers: [
      ['host', 'examplebucket.s3.amazonaws.com'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-content-sha256', EMPTY],
      [
        'authorization',
        authz(
          'host;x-amz-content-sha256;x-amz-date',
          '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
        ),
      ],
    ],
  },
  'Presigned GET Object': {
    method: 'GET',
    rawPath: '/test.txt',
    rawQuery:
      'X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    headers: [['host', 'examplebucket.s3.amazonaws.com']],
  },
  'PUT Object, chunked (seed signature)': {
    method: 'PUT',
    rawPath: '/examplebucket/chunkObject.txt',
    rawQuery: '',
    headers: [
      ['host', 's3.amazonaws.com'],
      ['x-amz-date', '20130524T000000Z'],
      ['x-amz-storage-class', 'REDUCED_REDUNDANCY'],
      ['x-amz-content-sha256', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD'],
      ['content-encoding', 'aws-chunked'],
      ['x-amz-decoded-content-length', '66560'],
      ['content-length', '66824'],
      [
        'authorization',
        authz(
          'content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class',
          '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
        ),
      ],
    ],
  },
};

async function codeOf(request: SigV4Request, now = NOW): Promise<string> {
  const verified = await verifySigV4(request, credentials, now);
  return verified.kind === 'ok' ? 'ok' : verified.error.code;
}

function withHeader(request: SigV4Request, name: string, value: string): SigV4Request {
  return { ...request, headers: request.headers.map(([n, v]) => [n, n === name ? value : v] as const) };
}

describe('S3 documentation signature examples', () => {
  for (const [name, request] of Object.entries(examples)) {
    describe(name, () => {
      const presigned = request.rawQuery.includes('X-Amz-Signature');
      it('verifies', async () => {
        expect(await codeOf(request)).toBe('ok');
      });
      it('fails with one signature digit changed', async () => {
        const flip = (sig: string) => sig.slice(0, -1) + (sig.endsWith('0') ? '1' : '0');
        const tampered = presigned
          ? { ...request, rawQuery: request.rawQuery.replace(/[0-9a-f]{64}$/, flip) }
          : withHeader(request, 'authorization', request.headers.at(-1)![1].replace(/[0-9a-f]{64}$/, flip));
        expect(await codeOf(tampered)).toBe('SignatureDoesNotMatch');
      });
      it('fails with a signed header changed', async () => {
        expect(await codeOf(withHeader(request, 'host', 'evil.example.com'))).toBe('SignatureDoesNotMatch');
      });
      it('fails 16 minutes off the server clock', async () => {
        const ahead = new Date(NOW.getTime() - 16 * 60_000);
        expect(await codeOf(request, ahead)).toBe('RequestTimeTooSkewed');
        const behind = new Date(NOW.getTime() + 16 * 60_000);
        expect(await codeOf(request, behind)).toBe(presigned ? 'ok' : 'RequestTimeTooSkewed');
      });
    });
  }

  it('expires a presigned URL after X-Amz-Expires', async () => {
    const request = examples['Presigned GET Object']!;
    expect(await codeOf(request, new Date(NOW.getTime() + 86_400_000))).toBe('ok');
    expect(await codeOf(request, new Date(NOW.getTime() + 86_401_000))).toBe('AccessDenied');
  });
});

function chunkedBody(signatures: [string, string, string], data = Buffer.alloc(66560, 'a')): Buffer {
  const first = data.subarray(0, 65536);
  const second = data.subarray(65536);
  return Buffer.concat([
    Buffer.from(`10000;chunk-signature=${signatures[0]}\r\n`),
    first,
    Buffer.from(`\r\n400;chunk-signature=${signatures[1]}\r\n`),
    second,
    Buffer.from(`\r\n0;chunk-signature=${signatures[2]}\r\n\r\n`),
  ]);
}

const CHUNK_SIGNATURES: [string, string, string] = [
  'ad80c730a21e5b8d04586a2213dd63b9a0e99e0e2307b0ade35a65485a288648',
  '0055627c9e194cb4542bae2aa5492e3c1575bbb81b612b7d234b86a503ef5497',
  'b6c6ea8a5354eaf15b3cb7646744f4275b71ea724fed81ceb9323e279d449df9',
];

async function decodeDocExample(body: Buffer, pieceSize: number): Promise<Buffer> {
  const verified = await verifySigV4(examples['PUT Object, chunked (seed signature)']!, credentials, NOW);
  if (verified.kind === 'err') throw new Error(verified.error.code);
  const decoder = new AwsChunkedDecoder({
    signing: {
      signingKey: verified.value.signingKey,
      amzDate: verified.value.claim.amzDate,
      scope: verified.value.claim.scope,
      seedSignature: verified.value.claim.signature,
    },
  });
  const out: Buffer[] = [];
  for (let i = 0; i < body.length; i += pieceSize) out.push(...decoder.push(body.subarray(i, i + pieceSize)));
  decoder.finish();
  return Buffer.concat(out);
}

describe('S3 documentation chunked upload example', () => {
  it('matches the 66824-byte framing and verifies every chunk signature, whatever the read sizes', async () => {
    const body = chunkedBody(CHUNK_SIGNATURES);
    expect(body.length).toBe(66824);
    for (const piece of [1, 7, 1000, 65536, body.length]) {
      expect((await decodeDocExample(body, piece)).equals(Buffer.alloc(66560, 'a'))).toBe(true);
    }
  });

  it('rejects each tampered chunk signature and tampered data', async () => {
    for (let i = 0; i < 3; i++) {
      const sigs = [...CHUNK_SIGNATURES] as [string, string, string];
      sigs[i] = sigs[i]!.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      const failure = await decodeDocExample(chunkedBody(sigs), 4096).catch(findBodyFailure);
      expect(failure).toMatchObject({ code: 'SignatureDoesNotMatch' });
    }
    const data = Buffer.alloc(66560, 'a');
    data[70_00] = 0x62;
    const failure = await decodeDocExample(chunkedBody(CHUNK_SIGNATURES, data), 4096).catch(findBodyFailure);
    expect(failure).toMatchObject({ code: 'SignatureDoesNotMatch' });
  });

  it('rejects a truncated body', async () => {
    const body = chunkedBody(CHUNK_SIGNATURES).subarray(0, 66000);
    const failure = await decodeDocExample(body, 4096).catch(findBodyFailure);
    expect(failure).toMatchObject({ code: 'IncompleteBody' });
  });
});
