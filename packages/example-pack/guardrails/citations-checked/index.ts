import { defineGuardrail, type RunTrace } from '@kindgi/sdk';

// A type alias (not an interface) so it fits the SDK's JSON object type.
type CitationsConfig = {
  minCitations: number;
  requireCitationTool?: boolean;
};

const CITATION = /\[[^\]\n]+\]/g;

function outputText(trace: RunTrace): string {
  return typeof trace.output === 'string' ? trace.output : JSON.stringify(trace.output ?? '');
}

// A RunTrace tool call names its tool by `toolId` (and `toolName`); `id`-only calls are not tool ids.
function calledCitationTool(trace: RunTrace): boolean {
  return (trace.toolCalls ?? []).some((call) => {
    if (typeof call !== 'object' || call === null) return false;
    const { toolId, toolName } = call as { toolId?: unknown; toolName?: unknown };
    return toolId === 'acme.format-citation' || toolName === 'acme.format-citation';
  });
}

export default defineGuardrail({
  id: 'acme.citations-checked',
  name: 'Answers cite their sources',
  action: { 'on-violation': 'retry', maxRetries: 2 },
  severity: 'error',
  scope: { when: 'always', agents: ['acme.support-agent'] },
  configSchema: {
    type: 'object',
    required: ['minCitations'],
    properties: {
      minCitations: { type: 'integer', minimum: 0 },
      requireCitationTool: { type: 'boolean', default: false },
    },
    additionalProperties: false,
  },
  config: { minCitations: 1, requireCitationTool: true },
  check: {
    id: 'acme.checks.citations',
    evaluate: (config: CitationsConfig, trace) => {
      const found = outputText(trace).match(CITATION)?.length ?? 0;
      if (found < config.minCitations) {
        return { passed: false, reason: `The answer cites ${found} source(s); at least ${config.minCitations} needed` };
      }
      if (config.requireCitationTool === true && !calledCitationTool(trace)) {
        return { passed: false, reason: 'Citations must be made with acme.format-citation' };
      }
      return { passed: true, attributes: { citations: found } };
    },
  },
});
