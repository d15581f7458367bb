import type { PackCallFailure } from '@kindgi/run-worker';
import { DRY_RUN_STOPPING_EFFECTS } from './limits.js';
import type { ResolvedTool, TurnState } from './types.js';

/** Read-only: `mutating: false` and no effect a dry run stops at. */
function stoppingEffect(tool: ResolvedTool): string | undefined {
  for (const effect of tool.effects ?? []) {
    const kind = (effect as { kind?: unknown } | null)?.kind;
    if (typeof kind === 'string' && DRY_RUN_STOPPING_EFFECTS.includes(kind)) return kind;
  }
  return undefined;
}

/** Why a dry run stops before this tool, or undefined when it runs it. */
export function dryRunStop(tool: ResolvedTool): { reason: 'mutating' | 'effect'; effect?: string } | undefined {
  const effect = stoppingEffect(tool);
  if (effect !== undefined) return { reason: 'effect', effect };
  return tool.mutating === false ? undefined : { reason: 'mutating' };
}

/** Why the agent's approval gates ask before this tool, or undefined when they don't. */
export function gateReason(state: TurnState, tool: ResolvedTool): 'not-read-only' | 'listed' | undefined {
  const gates = state.gates;
  if (gates.exempt.includes(tool.id)) return undefined;
  if (gates.tools.includes(tool.id)) return 'listed';
  if (!gates.enabled) return undefined;
  return tool.mutating === false && stoppingEffect(tool) === undefined ? undefined : 'not-read-only';
}

/** The code of a failed tool call, in the words `toolErrors` uses: a handler that threw is `tool-error`. */
export function failureCode(failure: PackCallFailure): { code: string; message: string } {
  switch (failure.kind) {
    case 'transport':
      return { code: failure.error.code, message: failure.error.message };
    case 'pack-error': {
      const code = failure.message.code === 'handler-throw' ? 'tool-error' : failure.message.code;
      return { code, message: failure.message.message };
    }
    case 'wrong-kind':
      return { code: 'pack-bad-reply', message: `The pack answered ${failure.received}, not ${failure.expected}` };
    case 'malformed-check':
      return { code: 'pack-bad-reply', message: failure.reason };
  }
}

/** True when the agent lets the model see (and fix) a failure of this code. */
export function shownToModel(state: TurnState, code: string): boolean {
  return state.toolErrors.includes(code);
}
