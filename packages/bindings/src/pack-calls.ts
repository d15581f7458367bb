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

/** Runs one tool call in a pack: a v2 message, or why no message came back. */
export type RunHandlerBinding = (
  call: { tool: ToolRef; input: unknown; ctx: CallContext } & PackHint & PackCallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;

/** Runs one guardrail check in a pack. */
export type RunCheckBinding = (
  call: { check: { id: string }; config: Record<string, unknown>; trace: RunTrace } & PackHint & PackCallOptions,
) => Promise<Result<PackResponse, PackTransportError>>;
