import { err, ok, type Result } from '@kindgi/protocol';
import { type S3Failure, s3Error } from '../errors.js';
import { xmlResponse } from '../request.js';
import { type XmlNode, xmlDocument } from '../xml.js';
import { ownerNode } from './bucket.js';
import type { S3Outcome } from './outcome.js';

/** A bucket the caller may see, as ListBuckets names it. */
export interface VisibleBucket {
  name: string;
  /** The region the bucket answers in (`BucketRegion`, and what `bucket-region` filters on). */
  region: string;
  /** ISO 8601. */
  createdAt: string;
}

/** What ListBuckets lists from: the buckets visible to the credential, its tenant, the request query. */
export interface ListBucketsInput {
  buckets: readonly VisibleBucket[];
  tenantId: string;
  query: ReadonlyMap<string, string>;
}

/** S3's page size when a paging parameter is sent without `max-buckets`, and the largest it accepts. */
const MAX_BUCKETS = 10_000;
const MAX_TOKEN_CHARS = 1024;
// Tokens are opaque to clients; the marker lets a token we never issued be told apart from one we did.
const TOKEN_MARKER = 'kindgi-buckets-after:';

interface Page {
  /** `undefined` when no paging parameter was sent: S3 then lists every bucket in one answer. */
  size: number | undefined;
  after: string | undefined;
  prefix: string | undefined;
  region: string | undefined;
}

function tokenAfter(name: string): string {
  return Buffer.from(`${TOKEN_MARKER}${name}`, 'utf8').toString('base64url');
}

function readPage(query: ReadonlyMap<string, string>): Result<Page, S3Failure> {
  const maxText = query.get('max-buckets');
  let size: number | undefined;
  if (maxText !== undefined) {
    size = /^\d{1,5}$/.test(maxText) ? Number(maxText) : Number.NaN;
    if (!(size >= 1 && size <= MAX_BUCKETS)) {
      return err(s3Error('InvalidArgument', 'max-buckets must be an integer from 1 to 10000.'));
    }
  }
  // Empty values count as absent, as an empty continuation-token does on ListObjectsV2.
  const token = query.get('continuation-token') || undefined;
  const prefix = query.get('prefix') || undefined;
  const region = query.get('bucket-region') || undefined;
  let after: string | undefined;
  if (token !== undefined) {
    const decoded = token.length <= MAX_TOKEN_CHARS ? Buffer.from(token, 'base64url').toString('utf8') : '';
    if (!decoded.startsWith(TOKEN_MARKER)) {
      return err(s3Error('InvalidArgument', 'The continuation token provided is incorrect'));
    }
    after = decoded.slice(TOKEN_MARKER.length);
  }
  const paged = size !== undefined || token !== undefined || prefix !== undefined || region !== undefined;
  return ok({ size: paged ? (size ?? MAX_BUCKETS) : undefined, after, prefix, region });
}

/**
 * ListBuckets (`GET` at the surface's root): the caller's visible buckets by name, filtered by `prefix` and
 * `bucket-region`, paged by `max-buckets` (1..10000) and `continuation-token` as S3 documents it.
 */
export function listBuckets(input: ListBucketsInput): S3Outcome {
  const page = readPage(input.query);
  if (page.kind === 'err') return page.error;
  const { size, after, prefix, region } = page.value;
  const matching = [...input.buckets]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .filter((bucket) => after === undefined || bucket.name > after)
    .filter((bucket) => prefix === undefined || bucket.name.startsWith(prefix))
    .filter((bucket) => region === undefined || bucket.region === region);
  const listed = size === undefined ? matching : matching.slice(0, size);
  const last = listed.at(-1);
  const next = listed.length < matching.length && last !== undefined ? tokenAfter(last.name) : undefined;
  const buckets = listed.map(
    (bucket): XmlNode => [
      'Bucket',
      [
        ['Name', bucket.name],
        ['CreationDate', bucket.createdAt],
        ['BucketRegion', bucket.region],
      ],
    ],
  );
  return xmlResponse(
    xmlDocument('ListAllMyBucketsResult', [
      ['Buckets', buckets],
      ownerNode(input.tenantId),
      ['ContinuationToken', next],
      ['Prefix', prefix],
    ]),
  );
}
