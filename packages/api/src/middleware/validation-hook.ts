import { describeFirstIssue, issuesFromZod, jsonPointer } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';

interface ZodIssueLike {
  code?: string;
  path: PropertyKey[];
  message: string;
  keys?: string[];
}

/**
 * The `defaultHook` of every route: a failed request validation becomes 400 `unknown-field` (fields the
 * schema does not name) or 400 `validation-failed` with `details.issues` (JSON Pointer paths).
 */
export function validationHook(
  result: { success: true } | { success: false; error: { issues: ZodIssueLike[] }; target?: string },
): undefined {
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
