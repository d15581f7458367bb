import { defineGuardrail, type RunTrace } from '@kindgi/sdk';

// A type alias (not an interface) so it fits the SDK's JSON object type.
type AnswerConfig = { minLength: number };

function answerText(trace: RunTrace): string {
  return typeof trace.output === 'string' ? trace.output : JSON.stringify(trace.output ?? '');
}

// A sample guardrail: an agent's answer must say something. Replace it with the rule your agents need.
export default defineGuardrail({
  id: '__PACK_ID__.answer-not-empty',
  name: 'Answers are not empty',
  action: 'halt',
  severity: 'error',
  configSchema: {
    type: 'object',
    properties: { minLength: { type: 'integer', minimum: 1, default: 1 } },
    additionalProperties: false,
  },
  config: { minLength: 1 },
  check: {
    id: '__PACK_ID__.checks.answer-not-empty',
    evaluate: (config: AnswerConfig, trace) => {
      const length = answerText(trace).trim().length;
      return length >= config.minLength
        ? { passed: true }
        : { passed: false, reason: `The answer has ${length} character(s); at least ${config.minLength} needed` };
    },
  },
});
