import type { ListByPrefixInput } from '@kindgi/bindings';
import { s3Error } from '../errors.js';
import { type S3Request, xmlResponse } from '../request.js';
import { uriEncode } from '../sigv4/encoding.js';
import { s3FailureOf } from '../storage-errors.js';
import { escapeXml, quoteEtag, S3_NAMESPACE, type XmlNode, xmlCannotCarry, xmlDocument } from '../xml.js';
import type { S3Outcome } from './outcome.js';

/** The `Owner` element of listings: the tenant is the account that owns the credential's bucket. */
export function ownerNode(tenantId: string): XmlNode {
  return [
    'Owner',
    [
      ['ID', tenantId],
      ['DisplayName', tenantId],
    ],
  ];
}

/** `encoding-type=url`: form-style (`+` for space), slashes kept, as S3 and boto3/awscli expect. */
function urlEncodeKey(text: string): string {
  return uriEncode(text, true).replace(/%20/g, '+');
}

/**
 * ListObjectsV2 (prefix, delimiter/CommonPrefixes, start-after, continuation, max-keys 0..1000, encoding-type,
 * fetch-owner) and ListObjects v1 (`marker`/`NextMarker`), which rclone and s3cmd use by default.
 */
export async function listObjects(req: S3Request, version: 1 | 2): Promise<S3Outcome> {
  const q = req.query;
  const encodingType = q.get('encoding-type');
  if (encodingType !== undefined && encodingType !== 'url') {
    return s3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  }
  const maxKeysText = q.get('max-keys') ?? '1000';
  if (!/^\d{1,10}$/.test(maxKeysText)) return s3Error('InvalidArgument', 'max-keys must be a non-negative integer.');
  const maxKeys = Math.min(1000, Number(maxKeysText));
  const input: ListByPrefixInput = { maxKeys };
  const prefix = q.get('prefix') ?? '';
  const delimiter = q.get('delimiter') ?? '';
  const startAfter = (version === 2 ? q.get('start-after') : q.get('marker')) ?? '';
  const token = version === 2 ? q.get('continuation-token') : undefined;
  if (prefix !== '') input.prefix = prefix;
  if (delimiter !== '') input.delimiter = delimiter;
  if (startAfter !== '') {
    // A v1 marker that is a common prefix (rclone pages directories so) skips everything under it.
    const skipsPrefix = version === 1 && delimiter !== '' && startAfter.endsWith(delimiter);
    input.startAfter = skipsPrefix ? `${startAfter}\uffff` : startAfter;
  }
  // An empty token means "none", as MinIO and Ceph RGW treat it (some clients send it on the first page).
  if (token !== undefined && token !== '') input.continuationToken = token;
  const listed = await req.storage.listByPrefix(req.auth.credential.tenantId, req.bucket, input);
  if (listed.kind === 'err') {
    if (listed.error.code === 'blob-storage-error' && input.continuationToken !== undefined) {
      return s3Error('InvalidArgument', 'The continuation token provided is incorrect');
    }
    return s3FailureOf(listed.error, req.logger, req.requestId);
  }
  const encode = encodingType === 'url' ? urlEncodeKey : (text: string) => text;
  if (encodingType !== 'url') {
    const texts = [
      prefix,
      delimiter,
      startAfter,
      ...listed.value.commonPrefixes,
      ...listed.value.contents.map((m) => m.key),
    ];
    if (texts.some(xmlCannotCarry)) {
      return s3Error(
        'InvalidArgument',
        'A key in this listing has characters XML 1.0 cannot carry; list with encoding-type=url.',
      );
    }
  }
  const fetchOwner = version === 1 || q.get('fetch-owner') === 'true';
  const owner = ownerNode(req.auth.credential.tenantId);
  const { contents, commonPrefixes, isTruncated, nextContinuationToken } = listed.value;
  const entries: XmlNode[] = [
    ...contents.map(
      (meta): XmlNode => [
        'Contents',
        [
          ['Key', encode(meta.key)],
          ['LastModified', meta.createdAt],
          ['ETag', quoteEtag(meta.etag)],
          ['Size', meta.size],
          ...(fetchOwner ? [owner] : []),
          ['StorageClass', 'STANDARD'],
        ],
      ],
    ),
    ...commonPrefixes.map((common): XmlNode => ['CommonPrefixes', [['Prefix', encode(common)]]]),
  ];
  const delimiterNode: XmlNode = ['Delimiter', delimiter === '' ? undefined : encode(delimiter)];
  if (version === 1) {
    const last = [contents.at(-1)?.key ?? '', commonPrefixes.at(-1) ?? ''].sort().at(-1) ?? '';
    return xmlResponse(
      xmlDocument('ListBucketResult', [
        ['Name', req.bucket],
        ['Prefix', encode(prefix)],
        ['Marker', encode(startAfter)],
        ['NextMarker', isTruncated && last !== '' ? encode(last) : undefined],
        ['MaxKeys', maxKeys],
        delimiterNode,
        ['EncodingType', encodingType],
        ['IsTruncated', isTruncated],
        ...entries,
      ]),
    );
  }
  const children: XmlNode[] = [
    ['Name', req.bucket],
    ['Prefix', encode(prefix)],
    delimiterNode,
    ['MaxKeys', maxKeys],
    ['EncodingType', encodingType],
    ['KeyCount', contents.length + commonPrefixes.length],
    ['IsTruncated', isTruncated],
    ['ContinuationToken', input.continuationToken],
    ['NextContinuationToken', isTruncated ? nextContinuationToken : undefined],
    ['StartAfter', startAfter === '' ? undefined : encode(startAfter)],
    ...entries,
  ];
  return xmlResponse(xmlDocument('ListBucketResult', children));
}

/**
 * GetBucketLocation: the region the client signed for, one of the configured regions (empty for us-east-1, as S3
 * answers for buckets there).
 */
export function bucketLocation(req: S3Request): S3Outcome {
  const region = req.auth.claim.region === 'us-east-1' ? '' : req.auth.claim.region;
  return xmlResponse(
    `<?xml version="1.0" encoding="UTF-8"?>\n<LocationConstraint xmlns="${S3_NAMESPACE}">${escapeXml(region)}</LocationConstraint>`,
  );
}

/** GetBucketVersioning: versioning is never enabled here, so the answer S3 gives for a never-versioned bucket. */
export function bucketVersioning(): S3Outcome {
  return xmlResponse(xmlDocument('VersioningConfiguration', []));
}
