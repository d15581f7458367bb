import type {
  CallContext,
  PackCallOptions,
  PackResponse,
  PackTransportError,
  Result,
  RunTrace,
  ToolRef,
} from '@kindgi/protocol';

/**
 * The pack a caller already found serving a call (from a `ToolDescriptor` or `GuardrailDescriptor`), so a
 * binding that routes to one of several packs need not look it up again. Absent when the caller did not
 * look (no registry) or found no pack for exactly this call; a router then looks it up itself, and it
 * also does when the named pack is not one it serves.
 */
export interface PackHint {
  packId?: string;
}

/** One tool call: the tool, its input and the ids the pack sees as `ctx`. */
export type ToolCall = { tool: ToolRef; input: unknown; ctx: CallContext } & PackHint & PackCallOptions;

/** One guardrail check: the check, its configuration and the trace it judges. */
export type CheckCall = { check: { id: string }; config: Record<string, unknown>; trace: RunTrace } & PackHint &
  PackCallOptions;

/** What a pack answers a call: a v2 message, or why no message came back (and whether the call ran). */
export type PackReply = Result<PackResponse, PackTransportError>;

/** Runs one tool call in a pack: a v2 message, or why no message came back. */
export type RunHandlerBinding = (call: ToolCall) => Promise<PackReply>;

/** Runs one guardrail check in a pack. */
export type RunCheckBinding = (call: CheckCall) => Promise<PackReply>;

/** Any call into a pack, as the pack-call pipeline carries it: a tool call or a check, told apart by `kind`. */
export type PackCall = ({ kind: 'invoke' } & ToolCall) | ({ kind: 'check' } & CheckCall);

/** One step of the pipeline, or its end (the transport): takes a call, answers the pack's reply. */
export type PackCaller = (call: PackCall) => Promise<PackReply>;

/**
 * A layer of the pipeline (telemetry, deadline, routing, retry): wraps the caller below it, the way an
 * HTTP client's interceptors wrap its dispatcher. It may change the call, call `next` any number of times,
 * or answer without calling it.
 */
export type PackCallLayer = (next: PackCaller) => PackCaller;
