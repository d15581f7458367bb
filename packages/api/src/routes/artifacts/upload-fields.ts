import type { BlobPutInput } from '@kindgi/bindings';
import { ApiError } from '../../errors/api-error.js';

/** The upload's text fields, validated, as blob put options (everything but the bytes). */
export type UploadFields = Omit<BlobPutInput, 'bytes'>;

const KNOWN = new Set(['name', 'contentType', 'tags', 'ownerRunId', 'projectId', 'expectedHash']);
const SHA256_HEX = /^[0-9a-f]{64}$/;
const MEDIA_TYPE = /^[\w!#$&^.+-]+\/[\w!#$&^.+-]+(\s*;.*)?$/;

/** Validates the text fields that preceded the file part; the file's own name and type are the defaults. */
export function uploadFieldsFrom(
  fields: Map<string, string>,
  file: { filename?: string; mimeType?: string },
): UploadFields {
  const unknown = [...fields.keys()].filter((name) => !KNOWN.has(name));
  if (unknown.length > 0) {
    throw new ApiError('unknown-field', `Unknown upload field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, {
      fields: unknown,
    });
  }
  const name = fields.get('name') || file.filename || 'unnamed';
  const contentType = fields.get('contentType') || file.mimeType || 'application/octet-stream';
  if (!MEDIA_TYPE.test(contentType)) {
    throw invalid('contentType', 'must be a media type such as text/plain');
  }
  const out: UploadFields = { name, contentType };
  const tagsText = fields.get('tags');
  if (tagsText !== undefined && tagsText !== '') out.tags = parseTags(tagsText);
  const ownerRunId = fields.get('ownerRunId');
  if (ownerRunId !== undefined && ownerRunId !== '') out.ownerRunId = ownerRunId;
  const projectId = fields.get('projectId');
  if (projectId !== undefined && projectId !== '') out.projectId = projectId;
  const expectedHash = fields.get('expectedHash');
  if (expectedHash !== undefined && expectedHash !== '') {
    if (!SHA256_HEX.test(expectedHash)) throw invalid('expectedHash', 'must be 64 lowercase hex characters (sha256)');
    out.expectedHash = expectedHash;
  }
  return out;
}

function parseTags(text: string): Record<string, string> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('tags', 'must be a JSON object');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw invalid('tags', 'must be a JSON object');
  const tags: Record<string, string> = {};
  for (const [key, tag] of Object.entries(value)) {
    if (typeof tag !== 'string') throw invalid(`tags/${key}`, 'must be a string');
    tags[key] = tag;
  }
  return tags;
}

function invalid(field: string, message: string): ApiError {
  return new ApiError('validation-failed', `Invalid upload field ${field}: ${message}`, {
    target: 'form',
    issues: [{ instancePath: `/${field}`, message }],
  });
}
