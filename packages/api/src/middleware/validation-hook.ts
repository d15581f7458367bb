import { describeFirstIssue, exceedsJsonDepth, issuesFromZod, jsonPointer, MAX_JSON_DEPTH } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';

interface ZodIssueLike {
  code?: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/**
 * The `defaultHook` of every route, where every JSON body arrives parsed: a body nested deeper than
 * `MAX_JSON_DEPTH` becomes 400 `bad-input`; a failed request validation becomes 400 `unknown-field` (fields
 * the schema does not name) or 400 `validation-failed` with `details.issues` (JSON Pointer paths).
 */
export function validationHook(
  result:
    | { success: true; data?: unknown; target?: string }
    | { success: false; data?: unknown; error: { issues: ZodIssueLike[] }; target?: string },
): undefined {
  // Checked whatever the schema said: pack calls, run storage and error details all serialize the body
  // recursively, and a deep enough one overflows the stack there (a 500, or a misleading 503).
  if (result.target === 'json' && exceedsJsonDepth(result.data, MAX_JSON_DEPTH)) {
    throw new ApiError('bad-input', `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.`, {
      maxDepth: MAX_JSON_DEPTH,
    });
  }
  if (result.success) return undefined;
  const target = result.target === undefined || result.target === 'json' ? 'body' : result.target;
  const issues = result.error.issues;
  const unknown = issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? (issue.keys ?? []).map((key) => jsonPointer([...issue.path, key])) : [],
  );
  if (unknown.length > 0) {
    throw new ApiError(
      'unknown-field',
      `Unknown field${unknown.length > 1 ? 's' : ''} in ${target}: ${unknown.join(', ')}`,
      {
        target,
        fields: unknown,
      },
    );
  }
  const wire = issuesFromZod(issues);
  throw new ApiError('validation-failed', `Invalid ${target} ${describeFirstIssue(wire)}`, { target, issues: wire });
}
