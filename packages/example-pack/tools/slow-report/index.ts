import { defineTool } from '@kindgi/sdk';
import { z } from 'zod';

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(signal.reason);
    }
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

export default defineTool({
  id: 'acme.slow-report',
  description: 'Builds a case report step by step (slowly); stops as soon as the call is cancelled or times out.',
  inputZod: z.object({
    steps: z.number().int().min(1).max(50).default(5),
    stepMs: z.number().int().min(0).max(10_000).default(200),
  }),
  outputZod: z.object({ stepsCompleted: z.number().int() }),
  limits: { timeoutMs: 60_000 },
  handler: async ({ steps, stepMs }, ctx) => {
    for (let step = 0; step < steps; step++) {
      // Every wait listens to the call's signal: a cancelled call frees its slot at once.
      await pause(stepMs, ctx.abortSignal);
      ctx.log.info('report step done', { step: step + 1, of: steps });
    }
    return { stepsCompleted: steps };
  },
});
