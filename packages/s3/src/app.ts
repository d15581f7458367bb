import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { type ApiLogger, type BlobStorageBinding, consoleLogger, type S3CredentialBinding } from '@kindgi/bindings';
import { messageOf } from '@kindgi/protocol';
import { type Context, Hono } from 'hono';
import { basePath as hostBasePath } from 'hono/route';
import { dispatch } from './dispatch.js';
import { type S3Failure, s3Error } from './errors.js';
import { listBuckets } from './ops/list-buckets.js';
import type { S3Outcome } from './ops/outcome.js';
import { decodeKey, errorResponse, headerText, type S3Request } from './request.js';
import { verifySigV4 } from './sigv4/verify.js';

/** What the S3 surface is built from. */
export interface CreateS3AppInput {
  blobStorage: BlobStorageBinding;
  s3Credentials: S3CredentialBinding;
  /** Where the surface is mounted; `''` serves it at `/` (for tools that cannot use an endpoint path). */
  basePath?: string;
  /**
   * The regions a credential scope may name (default `['us-east-1']`); another answers
   * `AuthorizationHeaderMalformed` naming the first.
   */
  regions?: readonly string[];
  /** The server clock SigV4 checks skew and expiry against (tests inject one). */
  clock?: () => Date;
  logger?: ApiLogger;
}

const MAX_KEY_BYTES = 1024;

function requestTarget(c: Context): string {
  // The raw request line keeps the path exactly as the client signed it; WHATWG URL parsing would normalise it.
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  let target = typeof incoming?.url === 'string' ? incoming.url : undefined;
  if (target === undefined) {
    const url = new URL(c.req.url);
    target = url.pathname + url.search;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
    const slash = target.indexOf('/', target.indexOf('//') + 2);
    target = slash < 0 ? '/' : target.slice(slash);
  }
  return target;
}

/** Bucket and key, still percent-encoded, from the path after the surface's base. */
function splitAddress(rest: string): { rawBucket: string; rawKey: string } {
  const slash = rest.indexOf('/', 1);
  return {
    rawBucket: slash < 0 ? rest.slice(1) : rest.slice(1, slash),
    rawKey: slash < 0 ? '' : rest.slice(slash + 1),
  };
}

/** Decoded query parameters, first value wins. */
function queryOf(rawQuery: string): Map<string, string> {
  const query = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(rawQuery)) if (!query.has(name)) query.set(name, value);
  return query;
}

async function* emptyBody(): AsyncGenerator<Uint8Array> {}

/**
 * Reads the Node request directly (no web-stream adapter). When verification stops early the rest of the body
 * is drained instead of destroying the socket, so the client still receives the S3 error.
 */
async function* drainOnEarlyExit(incoming: IncomingMessage): AsyncGenerator<Uint8Array> {
  let finished = false;
  try {
    for await (const chunk of incoming.iterator({ destroyOnReturn: false })) yield chunk as Uint8Array;
    finished = true;
  } finally {
    if (!finished && !incoming.destroyed) incoming.resume();
  }
}

function bodySource(c: Context): AsyncIterable<Uint8Array> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming && !incoming.readableDidRead && incoming.listenerCount('data') === 0) return drainOnEarlyExit(incoming);
  return (c.req.raw.body as AsyncIterable<Uint8Array> | null) ?? emptyBody();
}

/** Answers a client is to retry: it should get them, not a reset mid-body (some SDKs crash on that reset). */
const RETRY_ON_SAME_CONNECTION: ReadonlySet<string> = new Set(['SlowDown', 'InternalError']);

/**
 * Reads and drops what is left of a body the request stopped reading (refused before its first byte with
 * `SlowDown`, or cut short by a storage failure), so the client gets the answer on a connection it can keep
 * instead of a reset while it still sends. Nothing is kept; the listener's request and idle timeouts bound how
 * long a client may take.
 */
async function discardUnreadBody(c: Context): Promise<void> {
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
  if (incoming === undefined || incoming.readableEnded || incoming.destroyed) return;
  await new Promise<void>((resolve) => {
    for (const event of ['end', 'close', 'error']) incoming.once(event, () => resolve());
    incoming.resume();
  });
}

function toResponse(outcome: S3Outcome, requestId: string, method: string, resource: string): Response {
  if (outcome instanceof Response) {
    outcome.headers.set('x-amz-request-id', requestId);
    return outcome;
  }
  const response = errorResponse(outcome, requestId, method, resource);
  for (const [name, value] of Object.entries(outcome.headers ?? {})) response.headers.set(name, value);
  return response;
}

/**
 * The S3 wire surface as a Hono app: path-style `<basePath>/<bucket>/<key>` (ListBuckets at `<basePath>/`), SigV4
 * (header or presigned) on every request, one bucket per credential, S3 XML errors whose RequestId is the
 * `x-amz-request-id` header.
 */
export function createS3App(input: CreateS3AppInput): Hono {
  const basePath = (input.basePath ?? '/s3').replace(/\/+$/, '');
  const clock = input.clock ?? (() => new Date());
  const logger = input.logger ?? consoleLogger;
  const regions = input.regions !== undefined && input.regions.length > 0 ? [...input.regions] : ['us-east-1'];
  // Credentials carry no bucket creation time; ListBuckets names the moment this surface was built instead.
  const bucketsCreatedAt = clock().toISOString();
  const app = new Hono();

  const handle = async (c: Context): Promise<Response> => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    const method = c.req.method.toUpperCase();
    const target = requestTarget(c);
    const question = target.indexOf('?');
    const rawPath = question < 0 ? target : target.slice(0, question);
    const rawQuery = question < 0 ? '' : target.slice(question + 1);
    const fail = (failure: S3Failure) => toResponse(failure, requestId, method, rawPath);
    // Under a host's prefix (`host.route('/kindgi', app)`) the raw path carries it too: the client signed it,
    // so SigV4 checks the full path and only bucket and key parsing skip it. Hono rewrites a mounted app's
    // routes but not the request's path; its basePath() names the prefix (`/` at the root).
    const ownBase = hostBasePath(c).replace(/\/+$/, '') + basePath;
    if (rawPath !== ownBase && !rawPath.startsWith(`${ownBase}/`)) return fail(s3Error('InvalidURI'));
    try {
      const rawHeaders = c.req.raw.headers;
      // Node hands header values over as latin1 (one char per byte); clients sign the UTF-8 text those bytes
      // are, so the canonical request is built from that text and hashes back to the bytes sent.
      const headerPairs = [...rawHeaders].map(([name, value]): [string, string] => [name, headerText(value)]);
      const verified = await verifySigV4(
        { method, rawPath, rawQuery, headers: headerPairs },
        input.s3Credentials,
        clock(),
        { regions },
      );
      if (verified.kind === 'err') return fail(verified.error);
      const { rawBucket, rawKey } = splitAddress(rawPath.slice(ownBase.length));
      const query = queryOf(rawQuery);
      if (rawBucket === '') {
        if (method !== 'GET') return fail(s3Error('InvalidRequest', 'The request names no bucket.'));
        const { credential, claim } = verified.value;
        // One credential sees one bucket; it answers in the region the request was signed for (GetBucketLocation).
        const buckets = [{ name: credential.bucket, region: claim.region, createdAt: bucketsCreatedAt }];
        return toResponse(listBuckets({ buckets, tenantId: credential.tenantId, query }), requestId, method, rawPath);
      }
      const bucket = decodeKey(rawBucket);
      const key = decodeKey(rawKey);
      if (typeof bucket !== 'string') return fail(bucket);
      if (typeof key !== 'string') return fail(key);
      if (bucket !== verified.value.credential.bucket) {
        return fail(s3Error('AccessDenied', 'This access key is not granted this bucket.'));
      }
      if (Buffer.byteLength(key) > MAX_KEY_BYTES) return fail(s3Error('KeyTooLongError'));
      const request: S3Request = {
        method,
        requestId,
        tenantId: verified.value.credential.tenantId,
        bucket,
        key,
        query,
        header: (name) => rawHeaders.get(name) ?? undefined,
        auth: verified.value,
        body: () => bodySource(c),
        resource: rawPath,
        storage: input.blobStorage,
        logger,
      };
      const outcome = await dispatch(request, rawHeaders);
      if (!(outcome instanceof Response) && RETRY_ON_SAME_CONNECTION.has(outcome.code)) await discardUnreadBody(c);
      return toResponse(outcome, requestId, method, rawPath);
    } catch (thrown) {
      logger.error('s3: unexpected failure', {
        requestId,
        error: messageOf(thrown),
      });
      return fail(s3Error('InternalError'));
    }
  };

  if (basePath === '') app.all('*', handle);
  else {
    app.all(basePath, handle);
    app.all(`${basePath}/*`, handle);
  }
  return app;
}
