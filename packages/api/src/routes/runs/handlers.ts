import type { OpenAPIHono } from '@hono/zod-openapi';
import type {
  AgentRegistry,
  ApiLogger,
  GuardrailDescriptor,
  RunCheckBinding,
  RunFilter,
  RunRecord,
  RunStore,
  ToolRegistry,
} from '@kindgi/bindings';
import { canonicalJson } from '@kindgi/protocol';
import type { RunExecutor, StartRunInput } from '@kindgi/run-worker';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { must } from '../../errors/run-errors.js';
import { mountPrefix } from '../../middleware/mount-prefix.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import { RunBodies } from '../../responses/run-bodies.js';
import { jsonBytes } from '../../responses/sliced-body.js';
import { RunFeeds } from '../../runs/run-feeds.js';
import { resumePoint, type StreamTiming, streamRunEvents } from '../../runs/stream.js';
import { StreamSlots } from '../../runs/stream-slots.js';
import { agentRunStart } from './agent-start.js';
import { cancelRunRoute, getRunRoute, listRunsRoute, startRunRoute, streamRunRoute } from './definitions.js';

/** What the run routes need. */
export interface RunDeps {
  runStore: RunStore;
  executor: RunExecutor;
  toolRegistry: ToolRegistry | undefined;
  runCheck: RunCheckBinding | undefined;
  /** The tenant's agents, and whether this app runs them (a model catalog was given). */
  agents: { registry: AgentRegistry; runs: boolean } | undefined;
  cursors: CursorSealer;
  timing: StreamTiming;
  /** Open SSE streams one tenant may hold in this process. */
  maxStreamsPerTenant: number;
  logger: ApiLogger;
}

/**
 * Mounts `/v1/runs`: start, list, get, cancel and the SSE stream. A run's JSON goes out in slices as the
 * client reads it, a finished run's text shared by every request for it; a run's streams share one feed.
 */
export function registerRunRoutes(app: OpenAPIHono<AppEnv>, deps: RunDeps): void {
  const { runStore, executor, cursors } = deps;
  const bodies = new RunBodies(runStore);
  const stream = {
    feeds: new RunFeeds({ runStore, bodies, logger: deps.logger, pollMs: deps.timing.pollMs }),
    slots: new StreamSlots(deps.maxStreamsPerTenant),
    timing: deps.timing,
  };

  app.openapi(startRunRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const body = c.req.valid('json');
    const start =
      body.agentId !== undefined
        ? await agentRunStart(deps.agents, tenantId, body)
        : await toolRunStart(deps, tenantId, { ...body, toolId: body.toolId as string });
    const wait = body.options?.wait === true;
    const started = must(await executor.start({ ...start, tenantId, requestId: c.get('requestId'), wait }));
    if (wait) return jsonBytes<RunRecord, 201>(c, bodies.of(must(await started.done())), 201);
    c.header('location', `${mountPrefix(c)}/v1/runs/${started.run.runId}`);
    return c.json(started.run, 202);
  });

  app.openapi(listRunsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const query = c.req.valid('query');
    const filter: RunFilter = {};
    if (query.status !== undefined) filter.status = query.status;
    if (query.toolId !== undefined) filter.toolId = query.toolId;
    const scope = `${tenantId}|runs|${canonicalJson(filter)}`;
    const inner = query.cursor === undefined ? undefined : cursors.open(scope, query.cursor);
    const page = must(await runStore.list(tenantId, filter, inner, query.limit));
    const body: { data: RunRecord[]; hasMore: boolean; nextCursor?: string } = {
      data: page.data,
      hasMore: page.nextCursor !== undefined,
    };
    if (page.nextCursor !== undefined) body.nextCursor = cursors.seal(scope, page.nextCursor);
    return c.json(body, 200);
  });

  // Both read the run through `bodies`: a finished run's text is shared, not parsed from the store per request.
  const runBytes = async (tenantId: string, runId: string): Promise<Uint8Array> => {
    const bytes = await bodies.get(tenantId, runId);
    if (bytes === null) throw new ApiError('run-not-found', `No run '${runId}'.`, { runId });
    return bytes;
  };

  app.openapi(getRunRoute, async (c) => {
    const bytes = await runBytes(c.get('principal').tenantId, c.req.valid('param').runId);
    return jsonBytes<RunRecord, 200>(c, bytes, 200);
  });

  app.openapi(cancelRunRoute, async (c) => {
    const cancelled = must(await executor.cancel(c.get('principal').tenantId, c.req.valid('param').runId));
    return c.json(cancelled, 200);
  });

  app.openapi(streamRunRoute, async (c) => {
    const run = { tenantId: c.get('principal').tenantId, runId: c.req.valid('param').runId };
    await runBytes(run.tenantId, run.runId);
    const after = await resumePoint(runStore, run, c.req.header('last-event-id'));
    return streamRunEvents(c, stream, run, after);
  });
}

type StartBody = {
  toolId: string;
  version?: string | undefined;
  input: unknown;
  guardrails?: string[] | undefined;
  options?: { deadlineMs?: number | undefined; dryRun?: boolean | undefined } | undefined;
};

/** A tool run's start: the tool (and version) checked against the registry, its guardrails resolved. */
async function toolRunStart(
  deps: RunDeps,
  tenantId: string,
  body: StartBody,
): Promise<Omit<StartRunInput, 'tenantId' | 'requestId'>> {
  if (body.options?.dryRun !== undefined) {
    throw new ApiError('bad-input', 'options.dryRun applies to agent runs only.', { param: 'options.dryRun' });
  }
  let packId = '';
  if (deps.toolRegistry !== undefined) {
    const tool = await deps.toolRegistry.getTool(tenantId, body.toolId);
    if (tool === null) throw new ApiError('tool-not-found', `No tool '${body.toolId}'.`, { toolId: body.toolId });
    if (body.version !== undefined && !tool.versions.includes(body.version)) {
      throw new ApiError('tool-version-not-found', `Tool '${body.toolId}' has no version '${body.version}'.`, {
        toolId: body.toolId,
        version: body.version,
      });
    }
    // The queue the run waits in. Which pack runs it is decided when it executes (@kindgi/run-worker).
    packId = tool.packId;
  }
  return {
    toolId: body.toolId,
    packId,
    version: body.version,
    input: body.input,
    guardrails: await resolveGuardrails(deps, tenantId, body.guardrails ?? []),
    deadlineMs: body.options?.deadlineMs,
  };
}

async function resolveGuardrails(deps: RunDeps, tenantId: string, ids: string[]): Promise<GuardrailDescriptor[]> {
  if (ids.length === 0) return [];
  if (deps.toolRegistry === undefined || deps.runCheck === undefined) {
    throw new ApiError(
      'guardrails-unsupported',
      'This deployment cannot evaluate guardrails (no registry or check binding).',
    );
  }
  const out: GuardrailDescriptor[] = [];
  for (const id of new Set(ids)) {
    const guardrail = await deps.toolRegistry.getGuardrail(tenantId, id);
    if (guardrail === null) throw new ApiError('guardrail-not-found', `No guardrail '${id}'.`, { guardrailId: id });
    out.push(guardrail);
  }
  return out;
}
