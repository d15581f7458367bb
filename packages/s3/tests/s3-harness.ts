import type { AddressInfo } from 'node:net';
import { createAdaptorServer } from '@hono/node-server';
import type { BlobStorageBinding, S3Credential } from '@kindgi/bindings';
import { createInMemoryBlobStorage } from '@kindgi/testing';
import { type CreateS3AppInput, createS3App } from '../src/index.js';
import { canonicalRequest, deriveSigningKey, sha256Hex, signHex, stringToSign } from '../src/sigv4/signing.js';

export const KEY_ID = 'AKIAKINDGITEST000001';
export const SECRET = 'kindgi/test+secret/0123456789abcdefghijkl';
export const BUCKET = 'bucket1';
export const TENANT = 'tenant-1';
export const OTHER_KEY_ID = 'AKIAKINDGITEST000002';
export const EXPIRED_KEY_ID = 'AKIAKINDGITEST000003';

export interface S3TestServer {
  endpoint: string;
  origin: string;
  port: number;
  storage: BlobStorageBinding;
  close(): Promise<void>;
}

/** Starts the S3 surface on a real node:http server on 127.0.0.1 with an in-memory binding. */
export async function startS3Server(options: Partial<CreateS3AppInput> = {}): Promise<S3TestServer> {
  const storage = options.blobStorage ?? createInMemoryBlobStorage();
  const credentials: Record<string, S3Credential> = {
    [KEY_ID]: { secretKey: SECRET, tenantId: TENANT, bucket: BUCKET },
    [OTHER_KEY_ID]: { secretKey: SECRET, tenantId: TENANT, bucket: 'other-bucket' },
    [EXPIRED_KEY_ID]: { secretKey: SECRET, tenantId: TENANT, bucket: BUCKET, expiresAt: new Date(0) },
  };
  const basePath = options.basePath ?? '/s3';
  const app = createS3App({
    s3Credentials: { resolve: async (id) => credentials[id] ?? null },
    logger: { warn: () => undefined, error: () => undefined },
    ...options,
    blobStorage: storage,
    basePath,
  });
  const server = createAdaptorServer({ fetch: app.fetch });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    endpoint: `${origin}${basePath}`,
    origin,
    port,
    storage,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}

function amzDateOf(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
}

export interface RawRequest {
  method: string;
  /** Wire path including the base path, already percent-encoded. */
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: Buffer | string;
  /** Defaults to the sha256 of the body. */
  payloadHash?: string;
  date?: Date;
  keyId?: string;
  secret?: string;
  /** Extra header names to sign (lowercase); host, x-amz-content-sha256 and x-amz-date always are. */
  sign?: string[];
  /** The credential scope's region and service (default `us-east-1`, `s3`). */
  region?: string;
  service?: string;
  /** Carry the signing time in `Date` (ISO 8601 basic) instead of `x-amz-date`. */
  timeInDate?: boolean;
}

function utf8TextOf(bytes: string): string {
  if (!/[\x80-\xff]/.test(bytes)) return bytes;
  const text = Buffer.from(bytes, 'latin1').toString('utf8');
  return text.includes('\ufffd') ? bytes : text;
}

/** Builds the headers of a SigV4 header-signed request (our own signer, for hand-made edge cases). */
export function signRequest(port: number, request: RawRequest): Record<string, string> {
  const body = request.body ?? '';
  const date = request.date ?? new Date();
  const amzDate = amzDateOf(date);
  const payloadHash = request.payloadHash ?? sha256Hex(typeof body === 'string' ? body : new Uint8Array(body));
  const dateName = request.timeInDate ? 'date' : 'x-amz-date';
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    [dateName]: amzDate,
    'x-amz-content-sha256': payloadHash,
    ...request.headers,
  };
  const signed = ['host', 'x-amz-content-sha256', dateName, ...(request.sign ?? [])].sort();
  const region = request.region ?? 'us-east-1';
  const service = request.service ?? 's3';
  const scope = `${amzDate.slice(0, 8)}/${region}/${service}/aws4_request`;
  const canonical = canonicalRequest({
    method: request.method,
    rawPath: request.path,
    rawQuery: request.query ?? '',
    // Header values here are the bytes to send (latin1 strings); clients sign the UTF-8 text they are.
    headers: Object.entries(headers).map(([name, value]) => [name, utf8TextOf(value)] as const),
    signedHeaders: signed,
    payloadHash,
    presigned: false,
  });
  const key = deriveSigningKey(request.secret ?? SECRET, amzDate.slice(0, 8), region, service);
  const signature = signHex(key, stringToSign(amzDate, scope, canonical ?? ''));
  headers.authorization = `AWS4-HMAC-SHA256 Credential=${request.keyId ?? KEY_ID}/${scope}, SignedHeaders=${signed.join(';')}, Signature=${signature}`;
  return headers;
}

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
}

/** Sends a hand-signed request with fetch to 127.0.0.1. */
export async function rawS3(server: S3TestServer, request: RawRequest): Promise<RawResponse> {
  const headers = signRequest(server.port, request);
  delete headers.host;
  const url = `${server.origin}${request.path}${request.query ? `?${request.query}` : ''}`;
  const init: RequestInit & { duplex?: string } = { method: request.method, headers };
  if (request.body !== undefined && request.method !== 'GET' && request.method !== 'HEAD') {
    init.body = typeof request.body === 'string' ? request.body : new Uint8Array(request.body);
  }
  const response = await fetch(url, init);
  return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) };
}

/** The `<Code>` of an S3 XML error body. */
export function errorCode(body: Buffer | string): string | undefined {
  return /<Code>([^<]*)<\/Code>/.exec(body.toString())?.[1];
}
