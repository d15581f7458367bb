import { request as httpRequest } from 'node:http';
import { crc32 } from 'node:zlib';
import type { S3Client } from '@aws-sdk/client-s3';
import { Crc64Nvme } from '@aws-sdk/crc64-nvme';
import { chunkStringToSign, deriveSigningKey, sha256Hex, signHex, trailerStringToSign } from '../src/sigv4/signing.js';
import { BUCKET, type S3TestServer, SECRET, signRequest } from './s3-harness.js';

/** CRC32 of `data` as S3 writes it (base64 of the big-endian value). */
export function crc32b64(data: Buffer): string {
  const out = Buffer.alloc(4);
  out.writeUInt32BE(crc32(data) >>> 0);
  return out.toString('base64');
}

/** CRC64NVME of `data` as S3 writes it. */
export async function crc64b64(data: Buffer): Promise<string> {
  const state = new Crc64Nvme();
  state.update(data);
  return Buffer.from(await state.digest()).toString('base64');
}

/** Records the headers of every request `s3` sends, as they go on the wire (after checksums and signing). */
export function recordHeaders(s3: S3Client): Array<Record<string, string>> {
  const seen: Array<Record<string, string>> = [];
  s3.middlewareStack.add(
    (next) => async (args) => {
      seen.push({ ...(args.request as { headers: Record<string, string> }).headers });
      return next(args);
    },
    { step: 'finalizeRequest', priority: 'low', name: 'kindgiRecordHeaders' },
  );
  return seen;
}

/** What an aws-chunked request carries: its payload mode, bytes and the one trailer line. */
export interface ChunkedRequest {
  mode: 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER' | 'STREAMING-UNSIGNED-PAYLOAD-TRAILER';
  data: Buffer;
  /** `x-amz-checksum-<algorithm>`, declared in `x-amz-trailer` and sent after the last chunk. */
  trailerName: string;
  trailerValue: string;
  /** Query string (UploadPart's `partNumber=…&uploadId=…`). */
  query?: string;
}

/** The answer to a hand-sent request. */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

function frame(request: ChunkedRequest, signed: Record<string, string>): Buffer[] {
  const amzDate = signed['x-amz-date']!;
  const scope = `${amzDate.slice(0, 8)}/us-east-1/s3/aws4_request`;
  const key = deriveSigningKey(SECRET, amzDate.slice(0, 8), 'us-east-1', 's3');
  let previous = /Signature=([0-9a-f]{64})/.exec(signed.authorization!)![1]!;
  const signing = request.mode === 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER';
  const header = (chunk: Buffer) => {
    if (!signing) return Buffer.from(`${chunk.length.toString(16)}\r\n`);
    previous = signHex(key, chunkStringToSign(amzDate, scope, previous, sha256Hex(chunk)));
    return Buffer.from(`${chunk.length.toString(16)};chunk-signature=${previous}\r\n`);
  };
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < request.data.length; offset += 65_536) {
    const chunk = request.data.subarray(offset, offset + 65_536);
    pieces.push(header(chunk), chunk, Buffer.from('\r\n'));
  }
  pieces.push(header(Buffer.alloc(0)));
  const line = `${request.trailerName}:${request.trailerValue}`;
  pieces.push(Buffer.from(`${line}\r\n`));
  if (signing) {
    const signature = signHex(key, trailerStringToSign(amzDate, scope, previous, `${line}\n`));
    pieces.push(Buffer.from(`x-amz-trailer-signature:${signature}\r\n`));
  }
  pieces.push(Buffer.from('\r\n'));
  return pieces;
}

/** PUTs an aws-chunked body with a trailing checksum, chunk and trailer signatures computed here. */
export function putWithTrailer(server: S3TestServer, key: string, request: ChunkedRequest): Promise<Answer> {
  const path = `/s3/${BUCKET}/${key}`;
  const headers: Record<string, string> = {
    'content-encoding': 'aws-chunked',
    'x-amz-decoded-content-length': String(request.data.length),
    'x-amz-trailer': request.trailerName,
    'transfer-encoding': 'chunked',
  };
  const signed = signRequest(server.port, {
    method: 'PUT',
    path,
    ...(request.query !== undefined ? { query: request.query } : {}),
    headers,
    payloadHash: request.mode,
    sign: ['content-encoding', 'x-amz-decoded-content-length', 'x-amz-trailer'],
  });
  const target = `${path}${request.query !== undefined ? `?${request.query}` : ''}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port: server.port, method: 'PUT', path: target, headers: signed },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(parts).toString() }),
        );
      },
    );
    req.on('error', reject);
    for (const piece of frame(request, signed)) req.write(piece);
    req.end();
  });
}
