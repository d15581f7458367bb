import { afterEach, describe, expect, it } from 'vitest';
import citationsChecked from '../guardrails/citations-checked/index.js';
import caseLink from '../tools/case-link/index.js';
import formatCitation from '../tools/format-citation/index.js';
import lookupCase from '../tools/lookup-case/index.js';
import slowReport from '../tools/slow-report/index.js';
import { toolContext } from './helpers.js';

const savedBase = process.env.ACME_API_BASE;
afterEach(() => {
  if (savedBase === undefined) delete process.env.ACME_API_BASE;
  else process.env.ACME_API_BASE = savedBase;
});

describe('the example tools', () => {
  it('acme.lookup-case finds a case, with history on request, and refuses an unknown one', async () => {
    const { ctx } = toolContext();
    const found = await lookupCase.handler({ caseId: 'CASE-1001', includeHistory: false }, ctx);
    expect(found).toMatchObject({ id: 'CASE-1001', status: 'open' });
    expect(found).not.toHaveProperty('history');
    const withHistory = await lookupCase.handler({ caseId: 'CASE-1003', includeHistory: true }, ctx);
    expect(withHistory.history).toEqual(['opened by customer', 'replacement sent', 'closed']);
    await expect(lookupCase.handler({ caseId: 'CASE-9999', includeHistory: false }, ctx)).rejects.toThrow(
      'No case CASE-9999',
    );
  });

  it('acme.format-citation formats short and long citations', async () => {
    const { ctx } = toolContext();
    expect(await formatCitation.handler({ source: 'Refund policy', page: 3, style: 'short' }, ctx)).toEqual({
      citation: '[Refund policy, p. 3]',
    });
    expect(await formatCitation.handler({ source: 'Billing FAQ', page: 2, style: 'long' }, ctx)).toEqual({
      citation: '[Billing FAQ, page 2]',
    });
  });

  it('acme.case-link reads the declared ACME_API_BASE', async () => {
    const { ctx } = toolContext();
    process.env.ACME_API_BASE = 'https://support.acme.test/portal';
    expect(await caseLink.handler({ caseId: 'CASE-1002' }, ctx)).toEqual({
      url: 'https://support.acme.test/portal/cases/CASE-1002',
    });
    delete process.env.ACME_API_BASE;
    await expect(caseLink.handler({ caseId: 'CASE-1002' }, ctx)).rejects.toThrow('ACME_API_BASE is not set');
  });

  it('acme.slow-report completes, and stops with the signal’s reason when the call is aborted', async () => {
    expect(await slowReport.handler({ steps: 3, stepMs: 0 }, toolContext().ctx)).toEqual({ stepsCompleted: 3 });
    const controller = new AbortController();
    const { ctx, lines } = toolContext(controller.signal);
    // Each step would wait 10 s: the call can only finish early by honouring the abort.
    const running = slowReport.handler({ steps: 50, stepMs: 10_000 }, ctx);
    controller.abort(new Error('deadline exceeded'));
    await expect(running).rejects.toThrow('deadline exceeded');
    expect(lines).toEqual([]);
  });

  it('acme.citations-checked passes a cited answer made with the citation tool, fails others', async () => {
    const evaluate = citationsChecked.evaluate;
    if (!evaluate) throw new Error('the inline check should be set as evaluate');
    const bindings = { abortSignal: new AbortController().signal };
    const config = { minCitations: 1, requireCitationTool: true };
    // The RunTrace's tool calls: `toolCallId`, `toolId`, `toolName`, `arguments` (what an agent turn records).
    const call = {
      toolCallId: 'call_1',
      toolId: 'acme.format-citation',
      toolName: 'acme.format-citation',
      arguments: {},
    };
    const cited = { output: 'Refunds take 5 days [Refund policy, p. 3].', toolCalls: [call] };
    expect(await evaluate(config, cited, bindings)).toEqual({ passed: true, attributes: { citations: 1 } });
    const byCallId = { ...cited, toolCalls: [{ id: 'acme.format-citation' }] };
    expect(await evaluate(config, byCallId, bindings)).toMatchObject({ passed: false });
    expect(await evaluate(config, { output: 'Refunds take 5 days.' }, bindings)).toEqual({
      passed: false,
      reason: 'The answer cites 0 source(s); at least 1 needed',
    });
    expect(await evaluate(config, { output: 'See [Billing FAQ].' }, bindings)).toEqual({
      passed: false,
      reason: 'Citations must be made with acme.format-citation',
    });
  });
});
