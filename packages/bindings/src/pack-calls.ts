import type {
  CallContext,
  PackCallOptions,
  PackResponse,
  PackTransportError,
  Result,
  RunTrace,
  ToolRef,
} from '@kindgi/protocol';

/** Runs one tool call in a pack: a v2 message, or why no message came back. */
export type RunHandlerBinding = (
  call: { tool: ToolRef; input: unknown; ctx: CallContext } & PackCallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;

/** Runs one guardrail check in a pack. */
export type RunCheckBinding = (
  call: { check: { id: string }; config: Record<string, unknown>; trace: RunTrace } & PackCallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;
