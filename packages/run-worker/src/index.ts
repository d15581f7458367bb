export type { AgentRunRequest, AgentRunResult, AgentTurnRunner } from './agent-run.js';
export type { RunWorkerError } from './errors.js';
export { DEFAULT_RUN_EXECUTION, type RunExecutionOptions } from './execution-options.js';
export { RunExecutor, type RunExecutorDeps, type StartedRun, type StartRunInput } from './executor.js';
export { checkGuardrail, type GuardrailCheckOptions } from './guardrail-check.js';
export {
  type DescribeFailure,
  type ExpectedKind,
  type PackAnswer,
  type PackCallFailure,
  readPackReply,
} from './pack-reply.js';
