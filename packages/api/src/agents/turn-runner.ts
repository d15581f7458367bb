import {
  type AgentKernelBindings,
  resumeAgentTurn,
  runAgentTurn,
  type TurnEvent,
  type TurnOutcome,
  type TurnState,
} from '@kindgi/agent-kernel';
import type { ApprovalRecord, RunOutcome, RunRecord } from '@kindgi/bindings';
import type { AgentRunRequest, AgentRunResult, AgentTurnRunner } from '@kindgi/run-worker';

/** The journal kinds of a turn's events: everything but the streamed text deltas (model.call carries the call). */
function journalEvent(journal: AgentRunRequest['journal']): (event: TurnEvent) => void {
  return (event) => {
    if (event.kind === 'model.text') return;
    const { kind, ...data } = event;
    journal(kind, data);
  };
}

function approvalOf(run: RunRecord, outcome: Extract<TurnOutcome, { status: 'suspended' }>): ApprovalRecord {
  const { approvalId, toolId, version, arguments: args, reason } = outcome.approval;
  return {
    approvalId,
    tenantId: run.tenantId,
    runId: run.runId,
    agentId: run.agentId ?? run.toolId,
    toolId,
    version,
    arguments: args,
    reason,
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
}

/** A finished turn as the run records it: its answer (or a dry run's stop), usage and violations. */
function recorded(run: RunRecord, outcome: TurnOutcome): AgentRunResult {
  if (outcome.status === 'suspended') {
    return { kind: 'suspended', approval: approvalOf(run, outcome), state: outcome.state };
  }
  if (outcome.status === 'dry-run-stopped') {
    const { stoppedAt, wouldCall, usage } = outcome;
    return { kind: 'outcome', outcome: { status: 'completed', output: { dryRun: { stoppedAt, wouldCall }, usage } } };
  }
  const { answer, usage, modelCalls, guardrailErrors, violations } = outcome;
  const completed: RunOutcome = {
    status: 'completed',
    output: { answer, usage, modelCalls, ...(guardrailErrors.length > 0 ? { guardrailErrors } : {}) },
    violations,
  };
  return { kind: 'outcome', outcome: completed };
}

/**
 * The executor's turn runner over the agent kernel: a fresh run starts a turn with the run's message (a dry
 * run when its job says so); a resumed one continues the stored turn state with its approval's decision.
 * Turn events go to the run's journal (and so to its SSE stream).
 */
export function createTurnRunner(bindings: AgentKernelBindings): AgentTurnRunner {
  return async ({ run, job, resume, signal, journal }) => {
    const onEvent = journalEvent(journal);
    const decision = resume?.approval.decision;
    const turn =
      resume !== undefined && decision !== undefined
        ? await resumeAgentTurn(bindings, {
            state: resume.state as TurnState,
            decision: {
              approvalId: resume.approval.approvalId,
              decision: decision.decision,
              ...(decision.reason !== undefined ? { reason: decision.reason } : {}),
            },
            signal,
            onEvent,
          })
        : await runAgentTurn(bindings, {
            tenantId: run.tenantId,
            runId: run.runId,
            agentId: run.agentId ?? run.toolId,
            input: run.input as { message: string },
            dryRun: job.agent?.dryRun === true,
            signal,
            onEvent,
          });
    if (turn.kind === 'err') {
      const { code, message, details } = turn.error;
      const error = details === undefined ? { code, message } : { code, message, details };
      return { kind: 'outcome', outcome: { status: 'failed', error } };
    }
    return recorded(run, turn.value);
  };
}
