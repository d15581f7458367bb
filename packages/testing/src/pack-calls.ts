import type { RunCheckBinding, RunHandlerBinding } from '@kindgi/bindings';
import {
  type CallContext,
  type CheckResult,
  describeThrown,
  err,
  ok,
  PACK_PROTOCOL_VERSION,
  type PackResponse,
  type PackTransportError,
  packError,
  type Result,
  type RunTrace,
  toWireCause,
} from '@kindgi/protocol';

type Reply = Result<PackResponse, PackTransportError>;

/** A reply a scripted tool or check returns as is (an error message, a transport failure…). */
export class ScriptedReply {
  constructor(readonly reply: Reply) {}
}

/** Wraps a pack message or transport failure for a scripted tool or check to return. */
export function scriptedReply(reply: PackResponse | PackTransportError): ScriptedReply {
  return new ScriptedReply('kind' in reply ? ok(reply) : err(reply));
}

/** What a scripted tool gets besides its input. */
export interface ScriptedCall {
  ctx: CallContext;
  version?: string | undefined;
  signal?: AbortSignal | undefined;
  deadlineMs?: number | undefined;
}

export type ScriptedTool = (input: unknown, call: ScriptedCall) => unknown | Promise<unknown>;
export type ScriptedCheck = (
  trace: RunTrace,
  config: Record<string, unknown>,
) => CheckResult | ScriptedReply | Promise<CheckResult | ScriptedReply>;

/**
 * A `RunHandlerBinding` that runs tools in this process: a returned value is the `result`, a throw is
 * `handler-throw`, an unknown tool `tool-not-in-pack`, and an aborted signal `pack-call-aborted`.
 */
export function createScriptedRunHandler(tools: Record<string, ScriptedTool>): RunHandlerBinding {
  return async (call) => {
    const tool = tools[call.tool.id];
    if (tool === undefined) {
      return ok(packError('tool-not-in-pack', `No tool '${call.tool.id}' in this pack.`, { toolId: call.tool.id }));
    }
    return settle(
      call.signal,
      async () => {
        const value = await tool(call.input, {
          ctx: call.ctx,
          version: call.tool.version,
          signal: call.signal,
          deadlineMs: call.deadlineMs,
        });
        if (value instanceof ScriptedReply) return value.reply;
        return ok({ v: PACK_PROTOCOL_VERSION, kind: 'result', output: value });
      },
      (thrown) =>
        packError('handler-throw', describeThrown(thrown), { toolId: call.tool.id, cause: toWireCause(thrown) }),
    );
  };
}

/** A `RunCheckBinding` over in-process checks, keyed by check id (same failure mapping as tools). */
export function createScriptedRunCheck(checks: Record<string, ScriptedCheck>): RunCheckBinding {
  return async (call) => {
    const check = checks[call.check.id];
    if (check === undefined) {
      return ok(
        packError('check-not-in-pack', `No check '${call.check.id}' in this pack.`, { checkId: call.check.id }),
      );
    }
    return settle(
      call.signal,
      async () => {
        const value = await check(call.trace, call.config);
        if (value instanceof ScriptedReply) return value.reply;
        return ok({ v: PACK_PROTOCOL_VERSION, kind: 'check-result', result: value });
      },
      (thrown) =>
        packError('handler-throw', describeThrown(thrown), { checkId: call.check.id, cause: toWireCause(thrown) }),
    );
  };
}

async function settle(
  signal: AbortSignal | undefined,
  run: () => Promise<Reply>,
  onThrow: (thrown: unknown) => PackResponse,
): Promise<Reply> {
  const aborted: PackTransportError = { code: 'pack-call-aborted', message: 'The caller aborted the call.' };
  if (signal?.aborted) return err(aborted);
  let onAbort: (() => void) | undefined;
  const abort = new Promise<Reply>((resolve) => {
    onAbort = () => resolve(err(aborted));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([run().catch((thrown: unknown) => ok(onThrow(thrown))), abort]);
  } finally {
    if (onAbort) signal?.removeEventListener('abort', onAbort);
  }
}
