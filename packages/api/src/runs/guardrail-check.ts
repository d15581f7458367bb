import type { GuardrailDescriptor, RunCheckBinding } from '@kindgi/bindings';
import { type CheckResult, err, ok, parsePackResponse, type Result, type RunTrace } from '@kindgi/protocol';
import { ApiError } from '../errors/api-error.js';
import { apiErrorFromPack, apiErrorFromTransport } from '../errors/pack-errors.js';

/** Runs one guardrail's check with its configured values (overridden by `config`), as a REST result. */
export async function runGuardrailCheck(
  runCheck: RunCheckBinding,
  guardrail: GuardrailDescriptor,
  trace: RunTrace,
  options: { config?: Record<string, unknown> | undefined; signal?: AbortSignal; deadlineMs?: number },
): Promise<Result<CheckResult, ApiError>> {
  const reply = await runCheck({
    check: { id: guardrail.checkId },
    // A check id alone may name checks in two packs: the guardrail's pack is the one meant. A queued run's
    // guardrails were resolved when it was accepted; a router that no longer serves that pack looks again.
    packId: guardrail.packId,
    config: { ...(guardrail.config ?? {}), ...(options.config ?? {}) },
    trace,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.deadlineMs !== undefined ? { deadlineMs: options.deadlineMs } : {}),
  });
  if (reply.kind === 'err') return err(apiErrorFromTransport(reply.error));
  const message = reply.value;
  if (message.kind === 'error') return err(apiErrorFromPack(message));
  if (message.kind !== 'check-result') {
    return err(new ApiError('pack-protocol-error', `The pack answered a check with '${message.kind}'.`));
  }
  // The pack client parses every reply, but a binding that runs checks in process hands a check's value on
  // as it came: a verdict without a boolean `passed` is refused here as the protocol's parser refuses it.
  const checked = parsePackResponse(message);
  if (checked.kind === 'err') {
    return err(new ApiError('pack-protocol-error', `The check's reply is malformed: ${checked.error.message}`));
  }
  return ok(message.result);
}
