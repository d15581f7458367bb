import type { GuardrailDescriptor, RunCheckBinding } from '@kindgi/bindings';
import { type CheckResult, err, ok, packError, parsePackResponse, type Result, type RunTrace } from '@kindgi/protocol';
import { evaluateBuiltInCheck, isBuiltInCheck } from './builtin-checks.js';
import { type PackCallFailure, readPackReply } from './pack-reply.js';

/** What one guardrail check may add: configuration over the guardrail's own, a signal, a deadline. */
export interface GuardrailCheckOptions {
  config?: Record<string, unknown> | undefined;
  signal?: AbortSignal;
  deadlineMs?: number;
}

/** Runs one guardrail's check with its configured values (overridden by `options.config`): its verdict, or why none. */
export async function checkGuardrail(
  runCheck: RunCheckBinding,
  guardrail: GuardrailDescriptor,
  trace: RunTrace,
  options: GuardrailCheckOptions,
): Promise<Result<CheckResult, PackCallFailure>> {
  const config = { ...(guardrail.config ?? {}), ...(options.config ?? {}) };
  // A built-in check (`check: 'must-cite'`) is the runtime's: no pack ships it, so none is called.
  if (isBuiltInCheck(guardrail.checkId)) {
    const verdict = evaluateBuiltInCheck(guardrail.checkId, config, trace);
    if (verdict.kind === 'ok') return verdict;
    const message = packError('input-validation-failed', verdict.error, { checkId: guardrail.checkId });
    return err({ kind: 'pack-error', message });
  }
  const reply = await runCheck({
    check: { id: guardrail.checkId },
    // A check id alone may name checks in two packs: the guardrail's pack is the one meant. A queued run's
    // guardrails were resolved when it was accepted; a router that no longer serves that pack looks again.
    packId: guardrail.packId,
    config,
    trace,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
  });
  const answer = readPackReply(reply, 'check-result');
  if (answer.kind === 'err') return answer;
  // The pack client parses every reply, but a binding that runs checks in process hands a check's value on
  // as it came: a verdict without a boolean `passed` is refused here as the protocol's parser refuses it.
  const checked = parsePackResponse(answer.value);
  if (checked.kind === 'err') return err({ kind: 'malformed-check', reason: checked.error.message });
  return ok(answer.value.result);
}
