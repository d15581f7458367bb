import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { crc32 } from 'node:zlib';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chunkStringToSign, deriveSigningKey, sha256Hex, signHex, trailerStringToSign } from '../src/sigv4/signing.js';
import { BUCKET, errorCode, rawS3, type S3TestServer, SECRET, signRequest, startS3Server } from './s3-harness.js';

let server: S3TestServer;
// Every putByKey outcome, so a test can wait for the server to finish with an aborted upload.
const putOutcomes: Array<{ key: string; kind: string; code?: string }> = [];
let onPut: (() => void) | undefined;
let onPutStart: ((key: string) => void) | undefined;
beforeAll(async () => {
  const storage = createInMemoryBlobStorage();
  const putByKey = storage.putByKey.bind(storage);
  storage.putByKey = async (tenantId, bucket, key, input) => {
    onPutStart?.(key);
    const result = await putByKey(tenantId, bucket, key, input);
    putOutcomes.push({ key, kind: result.kind, ...(result.kind === 'err' ? { code: result.error.code } : {}) });
    onPut?.();
    return result;
  };
  server = await startS3Server({ blobStorage: storage });
});
afterAll(async () => {
  await server.close();
});

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Sends exact bytes with node:http: a Content-Length body, or HTTP-chunked when `contentLength` is false. */
function send(headers: Record<string, string>, method: string, path: string, chunks: Buffer[]): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method, path, headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString() }),
      );
    });
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

const crc32b64 = (data: Buffer) => {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data) >>> 0);
  return out.toString('base64');
};

type Mode =
  | 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD'
  | 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER'
  | 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';

interface ChunkedOptions {
  mode: Mode;
  data: Buffer;
  chunkSize?: number;
  trailerValue?: string;
  decodedLength?: number;
  tamperChunk?: number;
  tamperTrailerSignature?: boolean;
}

/** Builds and sends an aws-chunked PUT whose chunk and trailer signatures we compute ourselves. */
async function putChunked(key: string, o: ChunkedOptions): Promise<Sent> {
  const path = `/s3/${BUCKET}/${key}`;
  const trailer = o.mode.endsWith('TRAILER');
  const headers: Record<string, string> = {
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(o.decodedLength ?? o.data.length),
    'transfer-encoding': 'chunked',
  };
  if (trailer) headers['x-amz-trailer'] = 'x-amz-checksum-crc32';
  const signed = signRequest(server.port, {
    method: 'PUT',
    path,
    headers,
    payloadHash: o.mode,
    sign: ['content-encoding', 'x-amz-decoded-content-length', ...(trailer ? ['x-amz-trailer'] : [])],
  });
  const amzDate = signed['x-amz-date']!;
  const scope = `${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const key4 = deriveSigningKey(SECRET, amzDate.slice(0, 8), 'us-east-1', 's3');
  let previous = /Signature=([0-9a-f]{64})/.exec(signed.authorization!)![1]!;
  const signedChunks = o.mode !== 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
  const size = o.chunkSize ?? 65536;
  const pieces: Buffer[] = [];
  const frame = (chunk: Buffer, index: number) => {
    if (!signedChunks) return Buffer.from(`${chunk.length.toString(16)}\r\n`);
    let signature = signHex(key4, chunkStringToSign(amzDate, scope, previous, sha256Hex(chunk)));
    if (index === o.tamperChunk) signature = signature.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    previous = signature;
    return Buffer.from(`${chunk.length.toString(16)};chunk-signature=${signature}\r\n`);
  };
  let index = 0;
  for (let offset = 0; offset < o.data.length; offset += size, index++) {
    const chunk = o.data.subarray(offset, offset + size);
    pieces.push(frame(chunk, index), chunk, Buffer.from('\r\n'));
  }
  pieces.push(frame(Buffer.alloc(0), index));
  if (trailer) {
    const line = `x-amz-checksum-crc32:${o.trailerValue ?? crc32b64(o.data)}`;
    pieces.push(Buffer.from(`${line}\r\n`));
    if (signedChunks) {
      let sig = signHex(key4, trailerStringToSign(amzDate, scope, previous, `${line}\n`));
      if (o.tamperTrailerSignature) sig = sig.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
      pieces.push(Buffer.from(`x-amz-trailer-signature:${sig}\r\n`));
    }
  }
  pieces.push(Buffer.from('\r\n'));
  return send(signed, 'PUT', path, pieces);
}

async function stored(key: string): Promise<Buffer | undefined> {
  const res = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/${key}` });
  return res.status === 200 ? res.body : undefined;
}

describe('aws-chunked uploads', () => {
  const data = randomBytes(200_000);
  for (const mode of [
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
    'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
    'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
  ] as const) {
    it(`${mode}: stores the decoded bytes, MD5 ETag, and keeps the trailing checksum`, async () => {
      const key = `chunked/${mode}`;
      const res = await putChunked(key, { mode, data });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(`"${createHash('md5').update(data).digest('hex')}"`);
      expect((await stored(key))?.equals(data)).toBe(true);
      const head = await rawS3(server, {
        method: 'HEAD',
        path: `/s3/${BUCKET}/${key}`,
        headers: { 'x-amz-checksum-mode': 'ENABLED' },
      });
      expect(head.headers.get('content-encoding')).toBeNull();
      if (mode.endsWith('TRAILER')) expect(head.headers.get('x-amz-checksum-crc32')).toBe(crc32b64(data));
    });

    it(`${mode}: a wrong decoded length fails with IncompleteBody and stores nothing`, async () => {
      const res = await putChunked(`bad-length/${mode}`, { mode, data, decodedLength: data.length + 1 });
      expect({ status: res.status, code: errorCode(res.body) }).toEqual({ status: 400, code: 'IncompleteBody' });
      expect(await stored(`bad-length/${mode}`)).toBeUndefined();
    });
  }

  it('a tampered chunk signature fails with SignatureDoesNotMatch and stores nothing', async () => {
    for (const tamperChunk of [0, 2, 4]) {
      const res = await putChunked('tampered', { mode: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD', data, tamperChunk });
      expect({ status: res.status, code: errorCode(res.body) }).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    }
    expect(await stored('tampered')).toBeUndefined();
  });

  it('a tampered trailer signature or a wrong trailing CRC32 fails and keeps the previous version', async () => {
    const first = randomBytes(1000);
    await putChunked('keep', { mode: 'STREAMING-UNSIGNED-PAYLOAD-TRAILER', data: first });
    const sig = await putChunked('keep', {
      mode: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER',
      data,
      tamperTrailerSignature: true,
    });
    expect({ status: sig.status, code: errorCode(sig.body) }).toEqual({ status: 403, code: 'SignatureDoesNotMatch' });
    for (const mode of ['STREAMING-UNSIGNED-PAYLOAD-TRAILER', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER'] as const) {
      const res = await putChunked('keep', { mode, data, trailerValue: crc32b64(Buffer.from('nope')) });
      expect({ status: res.status, code: errorCode(res.body) }).toEqual({ status: 400, code: 'BadDigest' });
    }
    expect((await stored('keep'))?.equals(first)).toBe(true);
  });
});

describe('plain bodies', () => {
  it('411 MissingContentLength for a plain body with neither a length nor HTTP chunking', async () => {
    const path = `/s3/${BUCKET}/nolength`;
    const headers = signRequest(server.port, { method: 'PUT', path, payloadHash: 'UNSIGNED-PAYLOAD' });
    // node:http always frames a PUT body, so the request goes out over a plain socket.
    const lines = [
      `PUT ${path} HTTP/1.1`,
      ...Object.entries(headers).map(([n, v]) => `${n}: ${v}`),
      'connection: close',
    ];
    const socket = connect(server.port, '127.0.0.1');
    socket.end(`${lines.join('\r\n')}\r\n\r\n`);
    const parts: Buffer[] = [];
    for await (const chunk of socket) parts.push(chunk as Buffer);
    const answer = Buffer.concat(parts).toString();
    expect(answer.slice(0, 12)).toBe('HTTP/1.1 411');
    expect(errorCode(answer)).toBe('MissingContentLength');
  });

  it('accepts Transfer-Encoding: chunked without Content-Length (the payload hash still binds the body)', async () => {
    const path = `/s3/${BUCKET}/chunked-te`;
    const body = Buffer.from('abcdef');
    const signed = signRequest(server.port, {
      method: 'PUT',
      path,
      body,
      headers: { 'transfer-encoding': 'chunked' },
    });
    const ok = await send(signed, 'PUT', path, [body.subarray(0, 3), body.subarray(3)]);
    expect(ok.status).toBe(200);
    expect((await stored('chunked-te'))?.equals(body)).toBe(true);
    const lying = signRequest(server.port, {
      method: 'PUT',
      path,
      payloadHash: createHash('sha256').update('other').digest('hex'),
      headers: { 'transfer-encoding': 'chunked' },
    });
    const refused = await send(lying, 'PUT', path, [Buffer.from('ghi')]);
    expect({ status: refused.status, code: errorCode(refused.body) }).toEqual({
      status: 400,
      code: 'XAmzContentSHA256Mismatch',
    });
    expect((await stored('chunked-te'))?.equals(body)).toBe(true);
  });

  it('verifies x-amz-checksum-* headers (CRC32, CRC32C, SHA1, SHA256) and returns them on full GETs with checksum mode only', async () => {
    // The standard check input: CRC-32 0xCBF43926, CRC-32C 0xE3069283.
    const body = '123456789';
    const values: Record<string, string> = {
      crc32: Buffer.from('cbf43926', 'hex').toString('base64'),
      crc32c: Buffer.from('e3069283', 'hex').toString('base64'),
      sha1: createHash('sha1').update(body).digest('base64'),
      sha256: createHash('sha256').update(body).digest('base64'),
    };
    for (const [algorithm, value] of Object.entries(values)) {
      const header = `x-amz-checksum-${algorithm}`;
      const good = await rawS3(server, {
        method: 'PUT',
        path: `/s3/${BUCKET}/sum-${algorithm}`,
        body,
        headers: { [header]: value },
        sign: [header],
      });
      expect(good.status, algorithm).toBe(200);
      const plain = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/sum-${algorithm}` });
      expect(plain.headers.get(header)).toBeNull();
      const modeOn = { 'x-amz-checksum-mode': 'ENABLED' };
      const full = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/sum-${algorithm}`, headers: modeOn });
      expect(full.headers.get(header)).toBe(value);
      const partial = await rawS3(server, {
        method: 'GET',
        path: `/s3/${BUCKET}/sum-${algorithm}`,
        headers: { range: 'bytes=0-1', ...modeOn },
      });
      expect(partial.status).toBe(206);
      expect(partial.headers.get(header)).toBeNull();
      const wrong = Buffer.alloc(Buffer.from(value, 'base64').length, 7).toString('base64');
      const bad = await rawS3(server, {
        method: 'PUT',
        path: `/s3/${BUCKET}/sum-bad`,
        body,
        headers: { [header]: wrong },
        sign: [header],
      });
      expect({ status: bad.status, code: errorCode(bad.body) }).toEqual({ status: 400, code: 'BadDigest' });
    }
    expect(await stored('sum-bad')).toBeUndefined();
  });

  it('a client that disconnects mid-upload leaves no object behind', async () => {
    const path = `/s3/${BUCKET}/disconnect`;
    const headers = signRequest(server.port, {
      method: 'PUT',
      path,
      payloadHash: 'UNSIGNED-PAYLOAD',
      headers: { 'content-length': '1000000' },
      sign: ['content-length'],
    });
    const handled = new Promise<void>((resolve) => {
      onPut = () => {
        if (putOutcomes.some((outcome) => outcome.key === 'disconnect')) resolve();
      };
    });
    const req = httpRequest({ host: '127.0.0.1', port: server.port, method: 'PUT', path, headers });
    req.on('error', () => undefined);
    // Disconnect only once the server is streaming the body into storage.
    onPutStart = (key) => {
      if (key === 'disconnect') req.destroy();
    };
    req.write(randomBytes(1000));
    await handled;
    expect(putOutcomes.find((outcome) => outcome.key === 'disconnect')).toEqual({
      key: 'disconnect',
      kind: 'err',
      code: 'blob-body-failed',
    });
    expect((await rawS3(server, { method: 'HEAD', path })).status).toBe(404);
  });
});

describe('reads and listings', () => {
  it('single ranges: suffix, open-ended, clamped end, end-before-start ignored', async () => {
    await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}/range`, body: '0123456789' });
    const get = (range: string) => rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/range`, headers: { range } });
    const cases: Array<[string, number, string, string | null]> = [
      ['bytes=2-4', 206, '234', 'bytes 2-4/10'],
      ['bytes=7-', 206, '789', 'bytes 7-9/10'],
      ['bytes=-3', 206, '789', 'bytes 7-9/10'],
      ['bytes=5-100', 206, '56789', 'bytes 5-9/10'],
      ['bytes=5-2', 200, '0123456789', null],
    ];
    for (const [range, status, body, contentRange] of cases) {
      const res = await get(range);
      expect({ range, status: res.status, body: res.body.toString(), cr: res.headers.get('content-range') }).toEqual({
        range,
        status,
        body,
        cr: contentRange,
      });
    }
  });

  it('keeps UTF-8 x-amz-meta-* values (sent as raw bytes) and lowercases their names', async () => {
    const latin1 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
    const headers = { 'x-amz-meta-Title': latin1('ünï cødé 日本'), 'content-language': 'de' };
    const put = await rawS3(server, {
      method: 'PUT',
      path: `/s3/${BUCKET}/meta`,
      body: 'x',
      headers,
      sign: ['x-amz-meta-title'],
    });
    expect(put.status).toBe(200);
    const head = await rawS3(server, { method: 'HEAD', path: `/s3/${BUCKET}/meta` });
    // S3 answers non-ASCII metadata RFC 2047 encoded.
    const encoded = `=?UTF-8?B?${Buffer.from('ünï cødé 日本').toString('base64')}?=`;
    expect(head.headers.get('x-amz-meta-title')).toBe(encoded);
    expect(head.headers.get('content-language')).toBe('de');
  });

  it('an empty object: stored, read back empty, any range on it unsatisfiable', async () => {
    const put = await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}/empty`, body: '' });
    expect(put.headers.get('etag')).toBe('"d41d8cd98f00b204e9800998ecf8427e"');
    const got = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/empty` });
    expect({ status: got.status, length: got.body.length }).toEqual({ status: 200, length: 0 });
    const ranged = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}/empty`, headers: { range: 'bytes=0-' } });
    expect({ status: ranged.status, range: ranged.headers.get('content-range') }).toEqual({
      status: 416,
      range: 'bytes */0',
    });
  });

  it('versionId=null addresses the current object; encoding-type=url, max-keys=0 and fetch-owner', async () => {
    await rawS3(server, { method: 'PUT', path: `/s3/${BUCKET}/enc/a%20b%2Bc%25.txt`, body: 'x' });
    expect(
      (await rawS3(server, { method: 'HEAD', path: `/s3/${BUCKET}/enc/a%20b%2Bc%25.txt`, query: 'versionId=null' }))
        .status,
    ).toBe(200);
    const listed = await rawS3(server, {
      method: 'GET',
      path: `/s3/${BUCKET}`,
      query: 'list-type=2&prefix=enc%2F&encoding-type=url&fetch-owner=true',
    });
    const xml = listed.body.toString();
    expect(xml).toContain('<Key>enc/a+b%2Bc%25.txt</Key>');
    expect(xml).toContain('<EncodingType>url</EncodingType>');
    expect(xml).toContain('<Owner><ID>');
    const none = await rawS3(server, { method: 'GET', path: `/s3/${BUCKET}`, query: 'list-type=2&max-keys=0' });
    expect(none.body.toString()).toContain('<KeyCount>0</KeyCount>');
    expect(none.body.toString()).not.toContain('<Contents>');
  });
});
