import type { ApprovalRecord, RunJob, RunRecord, RunStore } from '@kindgi/bindings';
import type { Result } from '@kindgi/protocol';
import { expect, it } from 'vitest';

function value<T>(result: Result<T, unknown>): T {
  if (result.kind !== 'ok') throw new Error(`expected ok, got ${JSON.stringify(result.error)}`);
  return result.value;
}

const agentJob: RunJob = { packId: 'p1', requestId: 'req-a', guardrails: [], agent: {} };

function agentRun(runId: string, tenantId = 't1'): RunRecord {
  const at = new Date().toISOString();
  return {
    runId,
    tenantId,
    toolId: 'acme.agent',
    agentId: 'acme.agent',
    status: 'queued',
    input: { message: 'hi' },
    guardrails: [],
    violations: [],
    createdAt: at,
    updatedAt: at,
  };
}

/** A pending approval of `runId` as the executor stores it at a gate. */
export function contractApproval(approvalId: string, runId: string, tenantId = 't1'): ApprovalRecord {
  return {
    approvalId,
    tenantId,
    runId,
    agentId: 'acme.agent',
    toolId: 'acme.refund',
    version: '1.0.0',
    arguments: { amount: 5 },
    reason: 'not-read-only',
    status: 'pending',
    createdAt: new Date().toISOString(),
  };
}

/** Enqueues an agent run, claims it as `owner` and suspends it at approval `approvalId`. */
async function suspended(store: RunStore, runId: string, approvalId: string, tenantId = 't1'): Promise<void> {
  value(await store.enqueue(agentRun(runId, tenantId), agentJob, { maxQueued: 99 }));
  const claimed = value(await store.claim({ owner: 'o1', leaseMs: 60_000, busyPacks: [] }));
  expect(claimed?.run.runId).toBe(runId);
  const state = { v: 1, step: 3 };
  const run = value(await store.suspend(tenantId, runId, 'o1', contractApproval(approvalId, runId, tenantId), state));
  expect(run.status).toBe('waiting');
}

/** The approval half of the `RunStore` contract; `peer` (another server's handle) reads and decides when given. */
export function describeApprovalContract(store: () => RunStore, peer: () => RunStore | undefined): void {
  it('suspends a leased agent run with its approval and state; only its owner may', async () => {
    value(await store().enqueue(agentRun('a0'), agentJob, { maxQueued: 99 }));
    value(await store().claim({ owner: 'o1', leaseMs: 60_000, busyPacks: [] }));
    expect(await store().suspend('t1', 'a0', 'o2', contractApproval('x0', 'a0'), {})).toMatchObject({
      error: { code: 'run-lease-lost' },
    });
    expect(value(await store().getApproval('t1', 'x0'))).toBeNull();
    await suspended(store(), 'a1', 'x1');
    const other = peer() ?? store();
    expect(value(await other.get('t1', 'a1'))?.status).toBe('waiting');
    expect(value(await other.getApproval('t1', 'x1'))).toMatchObject({ status: 'pending', runId: 'a1' });
    expect(value(await other.suspendedTurn('t1', 'a1'))).toMatchObject({ state: { v: 1, step: 3 } });
    const kinds = value(await other.listEvents('t1', 'a1', 0)).map((e) => e.kind);
    expect(kinds).toEqual(['run.started', 'run.waiting']);
    // Waiting is neither claimable nor expirable.
    expect(value(await other.claim({ owner: 'o2', leaseMs: 1, busyPacks: [] }))).toBeNull();
    expect(value(await other.expireLeases('gone'))).toEqual([]);
  });

  it('decides once: the run is queued again and resumed by any claimer; twice or another tenant is refused', async () => {
    await suspended(store(), 'a2', 'x2');
    const other = peer() ?? store();
    expect(await other.completeApproval('t2', 'x2', { decision: 'approve' })).toMatchObject({
      error: { code: 'approval-not-found' },
    });
    const decided = value(await other.completeApproval('t1', 'x2', { decision: 'deny', reason: 'no' }));
    expect(decided).toMatchObject({ status: 'denied', decision: { decision: 'deny', reason: 'no' } });
    expect(await store().completeApproval('t1', 'x2', { decision: 'approve' })).toMatchObject({
      error: { code: 'approval-already-completed', approval: { status: 'denied' } },
    });
    expect(value(await store().get('t1', 'a2'))?.status).toBe('queued');
    const again = value(await store().claim({ owner: 'o3', leaseMs: 60_000, busyPacks: [] }));
    expect(again).toMatchObject({ run: { runId: 'a2', status: 'running' }, attempt: 2 });
    expect(value(await store().suspendedTurn('t1', 'a2'))?.approval.status).toBe('denied');
    const kinds = value(await store().listEvents('t1', 'a2', 0)).map((e) => e.kind);
    expect(kinds).toEqual(['run.started', 'run.waiting', 'run.resumed']);
  });

  it('records a decision on a run cancelled while it waited, leaving the run cancelled', async () => {
    await suspended(store(), 'a3', 'x3');
    value(await store().finish('t1', 'a3', { status: 'cancelled' }));
    expect(value(await store().completeApproval('t1', 'x3', { decision: 'approve' })).status).toBe('approved');
    expect(value(await store().get('t1', 'a3'))?.status).toBe('cancelled');
  });

  it('lists approvals newest first by status and run, with a cursor', async () => {
    await suspended(store(), 'b1', 'y1');
    await suspended(store(), 'b2', 'y2');
    await suspended(store(), 'b3', 'y3');
    await suspended(store(), 'b4', 'y4', 't2');
    value(await store().completeApproval('t1', 'y2', { decision: 'approve' }));
    const first = value(await store().listApprovals('t1', {}, undefined, 2));
    expect(first.data.map((a) => a.approvalId)).toEqual(['y3', 'y2']);
    const second = value(await store().listApprovals('t1', {}, first.nextCursor, 2));
    expect(second.data.map((a) => a.approvalId)).toEqual(['y1']);
    expect(second.nextCursor).toBeUndefined();
    const pending = value(await store().listApprovals('t1', { status: 'pending' }, undefined, 10));
    expect(pending.data.map((a) => a.approvalId)).toEqual(['y3', 'y1']);
    const ofRun = value(await store().listApprovals('t1', { runId: 'b2' }, undefined, 10));
    expect(ofRun.data.map((a) => a.approvalId)).toEqual(['y2']);
  });
}
