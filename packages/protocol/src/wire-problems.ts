import type { ErrorObject } from 'ajv';

/** What to say when a message fails its schema at a place: the published wording, in checking order. */
export interface WireProblem {
  /** Matches where the failure is: its instance path, plus `/name` for a missing property. */
  where: RegExp;
  /** Only failures of these keywords (default: any). */
  keywords?: readonly string[];
  /** The message, or how to make it from the decoded message. */
  says: string | ((message: Record<string, unknown>) => string);
}

/** A value for an error message: JSON, cut at 200 characters. */
export function show(value: unknown): string {
  if (value === undefined) return 'undefined';
  try {
    const text = JSON.stringify(value);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  } catch {
    return String(value);
  }
}

function whereOf(error: ErrorObject): string {
  const missing = error.keyword === 'required' ? (error.params as { missingProperty?: string }).missingProperty : '';
  return missing ? `${error.instancePath}/${missing}` : error.instancePath;
}

/** `/ctx/env/A` as `ctx.env.A`, `/issues/0/message` as `issues[0].message`. */
function dotted(pointer: string): string {
  return pointer
    .split('/')
    .slice(1)
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((out, part) => (/^\d+$/.test(part) ? `${out}[${part}]` : out ? `${out}.${part}` : part), '');
}

/**
 * One line for a message that failed its schema: the first of `problems` (in their order) that any
 * failure matches, else the first failure as `` `field` must … ``.
 */
export function describeWireProblem(
  errors: readonly ErrorObject[],
  problems: readonly WireProblem[],
  message: Record<string, unknown>,
): string {
  for (const problem of problems) {
    const hit = errors.some(
      (error) => problem.where.test(whereOf(error)) && (!problem.keywords || problem.keywords.includes(error.keyword)),
    );
    if (hit) return typeof problem.says === 'string' ? problem.says : problem.says(message);
  }
  const first = errors[0];
  if (!first) return 'The message does not match the protocol schema';
  const field = dotted(whereOf(first)) || 'message';
  if (first.keyword === 'required') return `\`${field}\` is required`;
  return `\`${field}\` ${first.message ?? `must pass "${first.keyword}"`}`;
}
