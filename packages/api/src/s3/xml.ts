import type { CompletedPart } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type S3Failure, s3Error } from './errors.js';

/** The S3 XML namespace on result roots. */
export const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

/** Escapes text for an XML element body. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );
}

/** A child element list, rendered in order; `undefined` values are left out. */
export type XmlNode = [string, string | number | boolean | undefined | XmlNode[]];

function renderNodes(nodes: XmlNode[]): string {
  let out = '';
  for (const [name, value] of nodes) {
    if (value === undefined) continue;
    out += Array.isArray(value)
      ? `<${name}>${renderNodes(value)}</${name}>`
      : `<${name}>${escapeXml(String(value))}</${name}>`;
  }
  return out;
}

/** A whole XML document with the S3 namespace on its root. */
export function xmlDocument(root: string, children: XmlNode[]): string {
  return `${PROLOG}<${root} xmlns="${S3_NAMESPACE}">${renderNodes(children)}</${root}>`;
}

/** An S3 error document: `<Error><Code/><Message/><Resource/><RequestId/></Error>`. */
export function errorDocument(failure: S3Failure, requestId: string, resource?: string): string {
  return `${PROLOG}${renderNodes([
    [
      'Error',
      [
        ['Code', failure.code],
        ['Message', failure.message],
        ['Resource', resource],
        ['RequestId', requestId],
      ],
    ],
  ])}`;
}

/** Quotes an ETag unless it already is. */
export function quoteEtag(etag: string): string {
  return etag.startsWith('"') ? etag : `"${etag}"`;
}

// Numeric character references on: Go clients (rclone) send ETag quotes as `&#34;`.
const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  htmlEntities: true,
  isArray: (name) => name === 'Part',
});

/**
 * Reads a CompleteMultipartUpload body: `<Part>` elements with PartNumber and ETag in either order, ETag quotes
 * stripped. Malformed XML, no parts, or a part without a valid number or ETag answers `MalformedXML`.
 */
export function parseCompleteMultipartUpload(xml: string): Result<CompletedPart[], S3Failure> {
  if (xml.trim() === '' || XMLValidator.validate(xml) !== true) return err(s3Error('MalformedXML'));
  let doc: unknown;
  try {
    doc = parser.parse(xml);
  } catch {
    return err(s3Error('MalformedXML'));
  }
  const root = (doc as Record<string, unknown>).CompleteMultipartUpload;
  const parts = (root as { Part?: unknown } | undefined)?.Part;
  if (!Array.isArray(parts) || parts.length === 0) return err(s3Error('MalformedXML'));
  const out: CompletedPart[] = [];
  for (const part of parts as Array<Record<string, unknown>>) {
    const number = typeof part.PartNumber === 'string' ? part.PartNumber : '';
    const etag = typeof part.ETag === 'string' ? part.ETag.replace(/^"|"$/g, '') : '';
    if (!/^\d{1,5}$/.test(number) || etag === '') return err(s3Error('MalformedXML'));
    out.push({ partNumber: Number(number), etag });
  }
  return ok(out);
}
