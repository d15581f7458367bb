import { s3Error } from '../errors.js';
import { type S3Request, xmlResponse } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import { type XmlNode, xmlDocument } from '../xml.js';
import type { S3Outcome } from './outcome.js';

/**
 * GetObjectTagging (`GET ?tagging` on a key): the tags the object was stored with, in key order. The aws CLI
 * asks for them before a multipart copy (`aws s3 cp`/`mv` between keys), so this is what makes that work.
 * Changing tags in place (Put/DeleteObjectTagging) is refused by the dispatcher: an object's attributes change
 * only by writing it again (PutObject, or CopyObject onto itself with `x-amz-tagging-directive: REPLACE`).
 */
export async function getObjectTagging(req: S3Request): Promise<S3Outcome> {
  const head = await req.storage.headByKey(req.auth.credential.tenantId, req.bucket, req.key);
  if (head.kind === 'err') return s3FailureOf(head.error, req.logger, req.requestId);
  if (head.value === null) return s3Error('NoSuchKey');
  const tags = head.value.tags;
  const tagNodes: XmlNode[] = Object.keys(tags)
    .sort()
    .map((key) => [
      'Tag',
      [
        ['Key', key],
        ['Value', tags[key]],
      ],
    ]);
  return xmlResponse(xmlDocument('Tagging', [['TagSet', tagNodes]]));
}
