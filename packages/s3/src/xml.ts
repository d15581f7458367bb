import type { BlobChecksums, CompletedPart } from '@kindgi/bindings';
import { err, ok, type Result } from '@kindgi/protocol';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { type S3Failure, s3Error } from './errors.js';

/** The S3 XML namespace on result roots. */
export const S3_NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

function cannotCarry(codePoint: number): boolean {
  if (codePoint < 0x20) return codePoint !== 0x09 && codePoint !== 0x0a && codePoint !== 0x0d;
  // A lone surrogate (for…of yields pairs as one code point), or the two noncharacters XML 1.0 excludes.
  return (codePoint >= 0xd800 && codePoint <= 0xdfff) || codePoint === 0xfffe || codePoint === 0xffff;
}

/** True when `text` holds a character no XML 1.0 document can carry (S3 answers such keys only URL-encoded). */
export function xmlCannotCarry(text: string): boolean {
  for (const char of text) if (cannotCarry(char.codePointAt(0)!)) return true;
  return false;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  // A raw CR would reach the reader as LF (XML end-of-line handling); the reference keeps it.
  '\r': '&#13;',
};

/**
 * Escapes text for an XML element body. Callers refuse text that `xmlCannotCarry` first where the exact value
 * matters (keys in listings); anywhere else such a character becomes U+FFFD so the document stays well-formed.
 */
export function escapeXml(text: string): string {
  const escaped = text.replace(/[&<>"'\r]/g, (c) => ESCAPES[c] ?? c);
  if (!xmlCannotCarry(escaped)) return escaped;
  let out = '';
  for (const char of escaped) out += cannotCarry(char.codePointAt(0)!) ? '\ufffd' : char;
  return out;
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

/**
 * An S3 error document: `<Error><Code/><Message/><Region/>?<Resource/><RequestId/></Error>`. `Region` is there
 * when the error names the region to sign for: s3cmd reads it and signs again for that region.
 */
export function errorDocument(failure: S3Failure, requestId: string, resource?: string): string {
  return `${PROLOG}${renderNodes([
    [
      'Error',
      [
        ['Code', failure.code],
        ['Message', failure.message],
        ['Region', failure.region],
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
export function parseCompleteMultipartUpload(xml: string): Result<CompletionPart[], S3Failure> {
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
  // A part number listed twice keeps its last entry (at the place of its first), as MinIO and Ceph RGW do.
  const byNumber = new Map<number, CompletionPart>();
  for (const part of parts as Array<Record<string, unknown>>) {
    const number = typeof part.PartNumber === 'string' ? part.PartNumber : '';
    const etag = typeof part.ETag === 'string' ? part.ETag.replace(/^"|"$/g, '') : '';
    if (!/^\d{1,5}$/.test(number) || etag === '') return err(s3Error('MalformedXML'));
    const entry: CompletionPart = { partNumber: Number(number), etag };
    for (const [element, algorithm] of PART_CHECKSUM_ELEMENTS) {
      const value = part[element];
      if (typeof value !== 'string' || value === '') continue;
      entry.checksums = { ...entry.checksums, [algorithm]: value };
    }
    byNumber.set(entry.partNumber, entry);
  }
  return ok([...byNumber.values()]);
}

/** A part of a CompleteMultipartUpload body, with the checksums the client listed for it. */
export interface CompletionPart extends CompletedPart {
  checksums?: BlobChecksums;
}

/** The `Checksum*` elements of parts and results, and the algorithm each names. */
export const PART_CHECKSUM_ELEMENTS: ReadonlyArray<[string, keyof BlobChecksums]> = [
  ['ChecksumCRC32', 'crc32'],
  ['ChecksumCRC32C', 'crc32c'],
  ['ChecksumCRC64NVME', 'crc64nvme'],
  ['ChecksumSHA1', 'sha1'],
  ['ChecksumSHA256', 'sha256'],
];
