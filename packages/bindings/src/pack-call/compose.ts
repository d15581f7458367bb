import { ok, packError } from '@kindgi/protocol';
import type {
  CheckCall,
  PackCaller,
  PackCallLayer,
  RunCheckBinding,
  RunHandlerBinding,
  ToolCall,
} from '../pack-calls.js';

/**
 * Builds one `callPack` from layers, outermost first: `composePackCall(a, b)(transport)` is
 * `a(b(transport))`, so a call passes `a`, then `b`, then reaches the transport.
 */
export function composePackCall(...layers: PackCallLayer[]): (transport: PackCaller) => PackCaller {
  return (transport) => layers.reduceRight<PackCaller>((next, layer) => layer(next), transport);
}

/** A pipeline as a `RunHandlerBinding` (what `createApp` is wired with). */
export function toRunHandler(callPack: PackCaller): RunHandlerBinding {
  return (call) => callPack({ kind: 'invoke', ...call });
}

/** A pipeline as a `RunCheckBinding`. */
export function toRunCheck(callPack: PackCaller): RunCheckBinding {
  return (call) => callPack({ kind: 'check', ...call });
}

/**
 * The bindings a host was wired with as the end of a pipeline. Without `runCheck`, a check answers
 * `check-not-in-pack` (nothing serves checks), the way a pack without that check would.
 */
export function callerOfBindings(runHandler: RunHandlerBinding, runCheck: RunCheckBinding | undefined): PackCaller {
  return async (call) => {
    if (call.kind === 'invoke') {
      const { kind: _kind, ...toolCall } = call;
      return runHandler(toolCall satisfies ToolCall);
    }
    const { kind: _kind, ...checkCall } = call;
    if (runCheck !== undefined) return runCheck(checkCall satisfies CheckCall);
    return ok(
      packError('check-not-in-pack', `No pack serves checks here ("${call.check.id}")`, { checkId: call.check.id }),
    );
  };
}
