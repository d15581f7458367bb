import type { ValidationIssue } from '@kindgi/protocol';
import type { CallToolResult } from '@modelcontextprotocol/server';

/** A failed tool call as the host's error table words it (for `createApp`: the REST code, message, details). */
export interface McpCallFailure {
  code: string;
  message: string;
  details?: Record<string, unknown> | undefined;
}

/** A tool's output as a result: `structuredContent`, and the same JSON as text for clients that read only text. */
export function outputResult(structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

function issueLines(details: Record<string, unknown> | undefined): string[] {
  const issues = details?.issues;
  if (!Array.isArray(issues)) return [];
  return issues
    .filter((issue): issue is ValidationIssue => typeof issue === 'object' && issue !== null && 'message' in issue)
    .map((issue) => `${issue.instancePath || '/'}: ${issue.message}`);
}

/**
 * A failed call as a tool result with `isError`, so the model sees why: the code and message, then one
 * `path: message` line per validation issue.
 */
export function failureResult(failure: McpCallFailure): CallToolResult {
  const text = [`${failure.code}: ${failure.message}`, ...issueLines(failure.details)].join('\n');
  return { content: [{ type: 'text', text }], isError: true };
}
