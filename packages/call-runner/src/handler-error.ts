import type { HandlerErrorCode, ValidationIssue, WireCause } from '@kindgi/protocol';

/**
 * Why a tool call or a check did not produce a value. The fields map one to one onto a v2 `error`
 * message, so the pack service sends it with `packError(error.code, error.message, error)`.
 */
export interface HandlerError {
  readonly code: HandlerErrorCode;
  readonly message: string;
  readonly toolId?: string;
  readonly checkId?: string;
  /** What the module threw, in its wire form (present for `handler-import-failed` and `handler-throw`). */
  readonly cause?: WireCause;
  /** Why a value failed its schema (present for the validation codes). */
  readonly issues?: ValidationIssue[];
}

/** Whose call failed: a tool's or a check's (decides whether the error carries `toolId` or `checkId`). */
export type CallSubject = { readonly toolId: string } | { readonly checkId: string };

/** Builds a `HandlerError`, leaving out the optional fields that are not given. */
export function handlerError(
  code: HandlerErrorCode,
  message: string,
  subject: CallSubject,
  extra: { cause?: WireCause; issues?: ValidationIssue[] } = {},
): HandlerError {
  const error: { -readonly [K in keyof HandlerError]: HandlerError[K] } = { code, message, ...subject };
  if ('cause' in extra) error.cause = extra.cause ?? null;
  if (extra.issues !== undefined) error.issues = extra.issues;
  return error;
}
