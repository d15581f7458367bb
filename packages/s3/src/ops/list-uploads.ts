import type { ListMultipartUploadsInput } from '@kindgi/bindings';
import { s3Error } from '../errors.js';
import { type S3Request, xmlResponse } from '../request.js';
import { uriEncode } from '../sigv4/encoding.js';
import { s3FailureOf } from '../storage-errors.js';
import { type XmlNode, xmlCannotCarry, xmlDocument } from '../xml.js';
import type { S3Outcome } from './outcome.js';

/**
 * ListMultipartUploads (`GET ?uploads`): prefix, key-marker/upload-id-marker paging, max-uploads 0..1000 and
 * encoding-type=url. A delimiter is not supported (501): no client we know of sends one here.
 */
export async function listUploads(req: S3Request): Promise<S3Outcome> {
  const q = req.query;
  const encodingType = q.get('encoding-type');
  if (encodingType !== undefined && encodingType !== 'url') {
    return s3Error('InvalidArgument', 'Invalid Encoding Method specified in Request');
  }
  if ((q.get('delimiter') ?? '') !== '') {
    return s3Error('NotImplemented', 'A delimiter on ListMultipartUploads is not implemented.');
  }
  const maxText = q.get('max-uploads') ?? '1000';
  if (!/^\d{1,10}$/.test(maxText)) return s3Error('InvalidArgument', 'max-uploads must be a non-negative integer.');
  const input: ListMultipartUploadsInput = { maxUploads: Math.min(1000, Number(maxText)) };
  const prefix = q.get('prefix') ?? '';
  const keyMarker = q.get('key-marker') ?? '';
  const uploadIdMarker = keyMarker === '' ? '' : (q.get('upload-id-marker') ?? '');
  if (prefix !== '') input.prefix = prefix;
  if (keyMarker !== '') input.keyMarker = keyMarker;
  if (uploadIdMarker !== '') input.uploadIdMarker = uploadIdMarker;
  const listed = await req.storage.listMultipartUploads(req.auth.credential.tenantId, req.bucket, input);
  if (listed.kind === 'err') return s3FailureOf(listed.error, req.logger, req.requestId);
  const { uploads, isTruncated } = listed.value;
  const encode = encodingType === 'url' ? (text: string) => uriEncode(text, true).replace(/%20/g, '+') : String;
  if (encodingType !== 'url' && [prefix, keyMarker, ...uploads.map((u) => u.key)].some(xmlCannotCarry)) {
    return s3Error(
      'InvalidArgument',
      'A key in this listing has characters XML 1.0 cannot carry; use encoding-type=url.',
    );
  }
  const who: XmlNode[] = [
    ['ID', req.auth.credential.tenantId],
    ['DisplayName', req.auth.credential.tenantId],
  ];
  const last = uploads.at(-1);
  return xmlResponse(
    xmlDocument('ListMultipartUploadsResult', [
      ['Bucket', req.bucket],
      ['KeyMarker', encode(keyMarker)],
      ['UploadIdMarker', uploadIdMarker],
      ['NextKeyMarker', isTruncated && last ? encode(last.key) : undefined],
      ['NextUploadIdMarker', isTruncated && last ? last.uploadId : undefined],
      ['Prefix', encode(prefix)],
      ['MaxUploads', input.maxUploads],
      ['EncodingType', encodingType],
      ['IsTruncated', isTruncated],
      ...uploads.map(
        (upload): XmlNode => [
          'Upload',
          [
            ['Key', encode(upload.key)],
            ['UploadId', upload.uploadId],
            ['Initiator', who],
            ['Owner', who],
            ['StorageClass', 'STANDARD'],
            ['Initiated', upload.initiated],
            ['ChecksumAlgorithm', upload.checksumAlgorithm?.toUpperCase()],
            ['ChecksumType', upload.checksumType],
          ],
        ],
      ),
    ]),
  );
}
