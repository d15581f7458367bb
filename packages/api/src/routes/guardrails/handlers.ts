import type { OpenAPIHono } from '@hono/zod-openapi';
import type { RunCheckBinding, ToolRegistry } from '@kindgi/bindings';
import { checkGuardrail } from '@kindgi/run-worker';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { apiErrorFromFailure } from '../../errors/pack-errors.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import { pageById } from '../../pagination/page-in-memory.js';
import { evaluateGuardrailRoute, listGuardrailsRoute } from './definitions.js';

/** What the guardrail routes need; `evaluate` is mounted only with `runCheck`. */
export interface GuardrailDeps {
  toolRegistry: ToolRegistry;
  runCheck: RunCheckBinding | undefined;
  cursors: CursorSealer;
}

/** Mounts `/v1/guardrails` and, with a check binding, `/v1/guardrails/{guardrailId}/evaluate`. */
export function registerGuardrailRoutes(app: OpenAPIHono<AppEnv>, deps: GuardrailDeps): void {
  const { toolRegistry, runCheck } = deps;
  app.openapi(listGuardrailsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const guardrails = await toolRegistry.listGuardrails(tenantId);
    return c.json(pageById(guardrails, c.req.valid('query'), deps.cursors, `${tenantId}|guardrails`), 200);
  });
  if (runCheck === undefined) return;
  app.openapi(evaluateGuardrailRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const { guardrailId } = c.req.valid('param');
    const body = c.req.valid('json');
    const guardrail = await toolRegistry.getGuardrail(tenantId, guardrailId);
    if (guardrail === null) {
      throw new ApiError('guardrail-not-found', `No guardrail '${guardrailId}'.`, { guardrailId });
    }
    const outcome = await checkGuardrail(runCheck, guardrail, body.trace, {
      config: body.config,
      signal: c.req.raw.signal,
    });
    if (outcome.kind === 'err') throw apiErrorFromFailure(outcome.error);
    return c.json(
      {
        guardrailId,
        checkId: guardrail.checkId,
        action: guardrail.action['on-violation'],
        severity: guardrail.severity,
        result: outcome.value,
      },
      200,
    );
  });
}
