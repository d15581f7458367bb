import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OtlpReceiver, startOtlpReceiver } from '../src/otlp.js';

let receiver: OtlpReceiver;
beforeAll(async () => {
  receiver = await startOtlpReceiver();
});
afterAll(() => receiver.close());

function exportSpans(names: string[], traceId: string): Promise<Response> {
  const spans = names.map((name, index) => ({ traceId, spanId: `${index}`.padStart(16, '0'), name, kind: 2 }));
  return fetch(receiver.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans }] }] }),
  });
}

describe('startOtlpReceiver', () => {
  it('collects exported spans and resolves waiters for spans that arrive later', async () => {
    const named = receiver.spanNamed('late', 'b'.repeat(32));
    const counted = receiver.waitFor(3);
    expect((await exportSpans(['early', 'late'], 'a'.repeat(32))).status).toBe(200);
    expect((await exportSpans(['late'], 'b'.repeat(32))).status).toBe(200);
    await counted;
    expect(await named).toMatchObject({ name: 'late', traceId: 'b'.repeat(32) });
    expect(receiver.spans.map((span) => span.name)).toEqual(['early', 'late', 'late']);
    expect(await receiver.spanNamed('early')).toMatchObject({ traceId: 'a'.repeat(32) });
  });
});
