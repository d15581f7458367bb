import type { OpenAPIHono } from '@hono/zod-openapi';
import type { ApprovalFilter, ApprovalRecord, RunStore } from '@kindgi/bindings';
import { canonicalJson } from '@kindgi/protocol';
import type { AppEnv } from '../../env.js';
import { ApiError } from '../../errors/api-error.js';
import { must } from '../../errors/run-errors.js';
import type { CursorSealer } from '../../pagination/cursor-seal.js';
import { completeApprovalRoute, getApprovalRoute, listApprovalsRoute } from './definitions.js';

/** What the approval routes need: the run store keeps approvals beside the runs they hold. */
export interface ApprovalDeps {
  runStore: RunStore;
  cursors: CursorSealer;
}

/**
 * Mounts `/v1/approvals`: list, get, and complete, which decides the approval and requeues its run in one
 * store step, so whichever server claims it next resumes the turn.
 */
export function registerApprovalRoutes(app: OpenAPIHono<AppEnv>, deps: ApprovalDeps): void {
  const { runStore, cursors } = deps;
  app.openapi(listApprovalsRoute, async (c) => {
    const { tenantId } = c.get('principal');
    const query = c.req.valid('query');
    const filter: ApprovalFilter = {};
    if (query.status !== undefined) filter.status = query.status;
    if (query.runId !== undefined) filter.runId = query.runId;
    const scope = `${tenantId}|approvals|${canonicalJson(filter)}`;
    const inner = query.cursor === undefined ? undefined : cursors.open(scope, query.cursor);
    const page = must(await runStore.listApprovals(tenantId, filter, inner, query.limit));
    const body: { data: ApprovalRecord[]; hasMore: boolean; nextCursor?: string } = {
      data: page.data,
      hasMore: page.nextCursor !== undefined,
    };
    if (page.nextCursor !== undefined) body.nextCursor = cursors.seal(scope, page.nextCursor);
    return c.json(body, 200);
  });

  app.openapi(getApprovalRoute, async (c) => {
    const { approvalId } = c.req.valid('param');
    const approval = must(await runStore.getApproval(c.get('principal').tenantId, approvalId));
    if (approval === null) throw new ApiError('approval-not-found', `No approval '${approvalId}'.`, { approvalId });
    return c.json(approval, 200);
  });

  app.openapi(completeApprovalRoute, async (c) => {
    const { approvalId } = c.req.valid('param');
    const body = c.req.valid('json');
    const decision =
      body.reason === undefined ? { decision: body.decision } : { decision: body.decision, reason: body.reason };
    const decided = must(await runStore.completeApproval(c.get('principal').tenantId, approvalId, decision));
    return c.json(decided, 200);
  });
}
