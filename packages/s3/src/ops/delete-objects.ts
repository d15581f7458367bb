import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { s3Error } from '../errors.js';
import { type S3Request, xmlResponse } from '../request.js';
import { s3FailureOf } from '../storage-errors.js';
import { type XmlNode, xmlDocument } from '../xml.js';
import { readSmallBody } from './multipart.js';
import type { S3Outcome } from './outcome.js';

const MAX_KEYS = 1000;
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: false,
  htmlEntities: true,
  isArray: (name) => name === 'Object',
});

/** Reads `<Delete><Quiet/>?<Object><Key/></Object>…</Delete>`; `undefined` when it is not that document. */
function parseDelete(xml: string): { keys: string[]; quiet: boolean } | undefined {
  if (xml.trim() === '' || XMLValidator.validate(xml) !== true) return undefined;
  const root = (parser.parse(xml) as { Delete?: { Object?: unknown; Quiet?: unknown } }).Delete;
  if (root === undefined || !Array.isArray(root.Object) || root.Object.length === 0) return undefined;
  const keys: string[] = [];
  for (const entry of root.Object as Array<{ Key?: unknown }>) {
    if (typeof entry.Key !== 'string' || entry.Key === '') return undefined;
    keys.push(entry.Key);
  }
  return { keys, quiet: String(root.Quiet ?? '').trim() === 'true' };
}

/** DeleteObjects (`POST ?delete`): up to 1000 keys, each deleted idempotently, per-key errors reported. */
export async function deleteObjects(req: S3Request): Promise<S3Outcome> {
  const text = await readSmallBody(req);
  if (typeof text !== 'string') return text;
  const parsed = parseDelete(text);
  if (parsed === undefined) return s3Error('MalformedXML');
  if (parsed.keys.length > MAX_KEYS) return s3Error('MalformedXML', 'At most 1000 keys can be deleted at once.');
  const results: XmlNode[] = [];
  for (const key of parsed.keys) {
    const deleted = await req.storage.deleteByKey(req.auth.credential.tenantId, req.bucket, key);
    if (deleted.kind === 'ok') {
      if (!parsed.quiet) results.push(['Deleted', [['Key', key]]]);
      continue;
    }
    const failure = s3FailureOf(deleted.error, req.logger, req.requestId);
    results.push([
      'Error',
      [
        ['Key', key],
        ['Code', failure.code],
        ['Message', failure.message],
      ],
    ]);
  }
  return xmlResponse(xmlDocument('DeleteResult', results));
}
