import { s3Error } from './errors.js';
import { bucketLocation, bucketVersioning, listObjects } from './ops/bucket.js';
import { copyObjectOrPart } from './ops/copy-object.js';
import { deleteObjects } from './ops/delete-objects.js';
import { listUploads } from './ops/list-uploads.js';
import { abortUpload, completeUpload, initiateUpload, listParts } from './ops/multipart.js';
import { readObject } from './ops/object-read.js';
import { getObjectTagging } from './ops/object-tagging.js';
import { putObject, uploadPart } from './ops/object-write.js';
import type { S3Outcome } from './ops/outcome.js';
import type { S3Request } from './request.js';
import { s3FailureOf } from './storage-errors.js';

// Subresources of real S3 that this surface does not implement: answered 501, never mistaken for an object op.
// `versioning` and `tagging` are here for their writes; GetBucketVersioning and GetObjectTagging are answered
// before this list is consulted.
const UNSUPPORTED = [
  'acl',
  'tagging',
  'versioning',
  'versions',
  'policy',
  'policyStatus',
  'cors',
  'lifecycle',
  'website',
  'logging',
  'notification',
  'replication',
  'encryption',
  'object-lock',
  'retention',
  'legal-hold',
  'torrent',
  'restore',
  'select',
  'attributes',
  'accelerate',
  'requestPayment',
  'ownershipControls',
  'publicAccessBlock',
  'analytics',
  'inventory',
  'metrics',
  'intelligent-tiering',
];

function notImplemented(what: string): S3Outcome {
  return s3Error('NotImplemented', `${what} is not implemented.`);
}

async function bucketOperation(req: S3Request): Promise<S3Outcome> {
  const q = req.query;
  switch (req.method) {
    case 'HEAD':
      return new Response(null, { status: 200, headers: { 'x-amz-bucket-region': req.auth.claim.region } });
    case 'GET':
      if (q.has('location')) return bucketLocation(req);
      if (q.has('uploads')) return listUploads(req);
      if (q.get('list-type') === '2') return listObjects(req, 2);
      // ListObjects v1 goes beyond the seed's 501: rclone and s3cmd list with it, some naming list-type=1.
      if (q.has('list-type') && q.get('list-type') !== '1')
        return s3Error('InvalidArgument', 'list-type must be 1 or 2.');
      return listObjects(req, 1);
    case 'PUT':
      // CreateBucket on the credential's own bucket: it exists, so S3's us-east-1 answer is a plain 200.
      return new Response(null, { status: 200, headers: { location: `/${req.bucket}` } });
    case 'POST':
      if (q.has('delete')) return deleteObjects(req);
      return notImplemented('POST on a bucket without ?delete');
    default:
      return notImplemented(`${req.method} on a bucket`);
  }
}

async function deleteObject(req: S3Request): Promise<S3Outcome> {
  const deleted = await req.storage.deleteByKey(req.auth.credential.tenantId, req.bucket, req.key);
  if (deleted.kind === 'err') return s3FailureOf(deleted.error, req.logger, req.requestId);
  return new Response(null, { status: 204 });
}

/** Routes an authenticated request to its S3 operation by method, key presence and query. */
export async function dispatch(req: S3Request, rawHeaders: Headers): Promise<S3Outcome> {
  const q = req.query;
  if (req.key === '' && req.method === 'GET' && q.has('versioning')) return bucketVersioning();
  if (req.key !== '' && req.method === 'GET' && q.has('tagging')) return getObjectTagging(req);
  const subresource = UNSUPPORTED.find((name) => q.has(name));
  if (subresource !== undefined) return notImplemented(`The ?${subresource} subresource`);
  const versionId = q.get('versionId');
  if (versionId !== undefined && versionId !== 'null') {
    return s3Error('InvalidArgument', 'Invalid version id specified');
  }
  if (req.key === '') return bucketOperation(req);
  const uploadId = q.get('uploadId');
  if (uploadId === '') return s3Error('NoSuchUpload');
  switch (req.method) {
    case 'GET':
    case 'HEAD':
      if (uploadId !== undefined && req.method === 'GET') return listParts(req, uploadId);
      return readObject(req);
    case 'PUT':
      if (rawHeaders.has('x-amz-copy-source')) return copyObjectOrPart(req, rawHeaders);
      if (uploadId !== undefined || q.has('partNumber')) {
        return uploadId === undefined
          ? s3Error('InvalidArgument', 'partNumber needs uploadId.')
          : uploadPart(req, uploadId);
      }
      return putObject(req, rawHeaders);
    case 'DELETE':
      return uploadId !== undefined ? abortUpload(req, uploadId) : deleteObject(req);
    case 'POST':
      if (q.has('uploads')) return initiateUpload(req, rawHeaders);
      if (uploadId !== undefined) return completeUpload(req, uploadId);
      return notImplemented('POST without ?uploads or ?uploadId');
    default:
      return s3Error('MethodNotAllowed');
  }
}
