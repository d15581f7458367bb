import type { ErrorObject } from 'ajv';
import type { ValidationIssue } from '../messages.js';

/** Converts Ajv errors to the protocol's `issues`. */
export function issuesFromAjv(errors: readonly ErrorObject[] | null | undefined): ValidationIssue[] {
  if (!errors) return [];
  return errors.map((error) => ({
    instancePath: error.instancePath,
    schemaPath: error.schemaPath,
    keyword: error.keyword,
    params: { ...error.params },
    message: error.message ?? `must pass "${error.keyword}"`,
  }));
}

/** A Zod issue path (`['a', 0, 'b']`) as a JSON Pointer (`/a/0/b`). */
export function jsonPointer(path: readonly PropertyKey[]): string {
  return path.map((part) => `/${String(part).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}

/** Converts Zod issues (v3 or v4 shape) to the protocol's `issues`, without `keyword`. */
export function issuesFromZod(issues: readonly { path: readonly PropertyKey[]; message: string }[]): ValidationIssue[] {
  return issues.map((issue) => ({ instancePath: jsonPointer(issue.path), message: issue.message }));
}

/** `at /a/b: must be >= 0` for the first issue, used in one-line error messages. */
export function describeFirstIssue(issues: readonly ValidationIssue[]): string {
  const first = issues[0];
  if (!first) return 'invalid';
  return `at ${first.instancePath || '/'}: ${first.message}`;
}
