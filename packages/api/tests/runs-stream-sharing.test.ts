import type { RunStore } from '@kindgi/bindings';
import { createInMemoryRunStore, readSse } from '@kindgi/testing';
import { describe, expect, it } from 'vitest';
import { SLICE_BYTES } from '../src/responses/sliced-body.js';
import { AUTH_A, AUTH_B, deferred, envelope, jsonPost, makeApp } from './helpers.js';

type Run = { runId: string };

/** A run store that counts the calls this file cares about, each watch with the notifications it got. */
function countingRunStore(inner: RunStore = createInMemoryRunStore()) {
  const counts = { get: 0, listEvents: 0, watches: [] as { notified: number; closed: boolean }[] };
  const runStore: RunStore = {
    ...inner,
    get: (...args) => {
      counts.get++;
      return inner.get(...args);
    },
    listEvents: (...args) => {
      counts.listEvents++;
      return inner.listEvents(...args);
    },
    watch: (tenantId, runId, onChange) => {
      const watch = { notified: 0, closed: false };
      counts.watches.push(watch);
      const unwatch = inner.watch(tenantId, runId, () => {
        watch.notified++;
        onChange();
      });
      return () => {
        watch.closed = true;
        unwatch();
      };
    },
  };
  return { runStore, counts };
}

// No periodic re-read and no keep-alive while the test runs: every journal read is one a change caused.
const QUIET = { pollMs: 600_000, keepAliveMs: 600_000 };

describe('streams of one run share one feed', () => {
  it('60 streams (some resumed) cost one watch and one journal read per change, and each gets every event', async () => {
    const hold = deferred();
    const started = deferred();
    const { runStore, counts } = countingRunStore();
    const { app } = makeApp({ runStore, sse: QUIET }, { hold: hold.promise, started: () => started.resolve() });
    const run = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: { n: 1 } }))).json()) as Run;
    await started.promise;
    const watchesBefore = counts.watches.length;
    const readsBefore = counts.listEvents;

    const fresh = await Promise.all(
      Array.from({ length: 40 }, () => app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A })),
    );
    const resumed = await Promise.all(
      Array.from({ length: 20 }, () =>
        app.request(`/v1/runs/${run.runId}/stream`, { headers: { ...AUTH_A, 'last-event-id': `${run.runId}:1` } }),
      ),
    );
    const reading = [...fresh, ...resumed].map((res) => readSse(res));
    hold.resolve();
    const results = await Promise.all(reading);

    for (const { frames, ended } of results.slice(0, 40)) {
      expect(ended).toBe(true);
      expect(frames.map((f) => [f.id, f.event])).toEqual([
        [`${run.runId}:1`, 'run.started'],
        [`${run.runId}:2`, 'run.completed'],
      ]);
      expect(JSON.parse(frames[1]?.data ?? 'null')).toMatchObject({ status: 'completed', output: { n: 1 } });
    }
    for (const { frames } of results.slice(40)) expect(frames.map((f) => f.event)).toEqual(['run.completed']);

    const streamWatches = counts.watches.slice(watchesBefore);
    expect(streamWatches).toHaveLength(1);
    // The resume checks read once each (Last-Event-Id is verified against the journal); the feed reads once
    // at its start and once per announced change.
    const feedReads = counts.listEvents - readsBefore - resumed.length;
    expect(feedReads).toBeLessThanOrEqual(1 + (streamWatches[0]?.notified ?? 0));
    // The last stream to end closed the feed, and with it the watch.
    expect(streamWatches[0]?.closed).toBe(true);
  });

  it('a stream opened after the last one closed opens a new feed; its frames are the same', async () => {
    const { runStore, counts } = countingRunStore();
    const { app } = makeApp({ runStore, sse: QUIET });
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: { a: 1 }, options: { wait: true } }))
    ).json()) as Run;
    const watchesBefore = counts.watches.length;
    const first = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
    const second = await readSse(await app.request(`/v1/runs/${run.runId}/stream`, { headers: AUTH_A }));
    expect(second.frames).toEqual(first.frames);
    expect(counts.watches.length - watchesBefore).toBe(2);
  });
});

describe('finished runs are serialized once and sent in slices', () => {
  it('concurrent GETs of a finished run another server wrote share one store read', async () => {
    const shared = createInMemoryRunStore();
    const writer = makeApp({ runStore: shared });
    const run = (await (
      await writer.app.request('/v1/runs', jsonPost({ toolId: 'echo', input: { b: 2 }, options: { wait: true } }))
    ).json()) as Run;
    const { runStore, counts } = countingRunStore(shared);
    const { app } = makeApp({ runStore });
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A })),
    );
    const texts = await Promise.all(answers.map((res) => res.text()));
    expect(new Set(texts).size).toBe(1);
    expect(JSON.parse(texts[0] ?? 'null')).toMatchObject({ runId: run.runId, output: { b: 2 } });
    expect(counts.get).toBe(1);
    // Later requests are answered from the kept copy.
    await (await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A })).text();
    expect(counts.get).toBe(1);
    // Another tenant never sees it.
    const foreign = await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_B });
    expect(foreign.status).toBe(404);
  });

  it('a body bigger than a slice arrives whole, with its length, in slices of at most SLICE_BYTES', async () => {
    const { app } = makeApp();
    const text = 'y'.repeat(5 * SLICE_BYTES + 123);
    const run = (await (
      await app.request('/v1/runs', jsonPost({ toolId: 'echo', input: { text }, options: { wait: true } }))
    ).json()) as Run;
    for (const res of [
      await app.request(`/v1/runs/${run.runId}`, { headers: AUTH_A }),
      await app.request('/v1/tools/echo/invoke', jsonPost({ input: { text } })),
    ]) {
      expect(res.headers.get('content-type')).toBe('application/json');
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const sizes: number[] = [];
      const chunks: Uint8Array[] = [];
      for (let next = await reader.read(); !next.done; next = await reader.read()) {
        sizes.push(next.value.byteLength);
        chunks.push(next.value);
      }
      expect(Math.max(...sizes)).toBeLessThanOrEqual(SLICE_BYTES);
      const body = Buffer.concat(chunks);
      expect(body.byteLength).toBe(Number(res.headers.get('content-length')));
      expect(JSON.parse(body.toString('utf8')).output).toEqual({ text });
    }
  });
});

describe('per-tenant cap on open streams', () => {
  it('refuses a stream past the cap with 429 too-many-streams and Retry-After; a closed stream frees its slot', async () => {
    const hold = deferred();
    const { app } = makeApp({ sse: { ...QUIET, maxStreamsPerTenant: 2 } }, { hold: hold.promise });
    const runA = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 1 }))).json()) as Run;
    const runB = (await (await app.request('/v1/runs', jsonPost({ toolId: 'hold', input: 2 }, AUTH_B))).json()) as Run;
    const open = (runId: string, headers = AUTH_A) => app.request(`/v1/runs/${runId}/stream`, { headers });

    // HEAD gets the stream's headers and holds nothing.
    for (let i = 0; i < 3; i++) {
      const head = await app.request(`/v1/runs/${runA.runId}/stream`, { method: 'HEAD', headers: AUTH_A });
      expect([head.status, head.headers.get('content-type'), head.body]).toEqual([200, 'text/event-stream', null]);
    }
    const first = await open(runA.runId);
    const second = await open(runA.runId);
    expect([first.status, second.status]).toEqual([200, 200]);
    const refused = await open(runA.runId);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('5');
    const error = await envelope(refused);
    expect(error.code).toBe('too-many-streams');
    expect(error.details).toEqual({ limit: 2 });

    // The cap is per tenant: tenant B still opens its streams.
    const other = await open(runB.runId, AUTH_B);
    expect(other.status).toBe(200);

    // A client that goes away frees its slot.
    await (first.body as ReadableStream<Uint8Array>).cancel();
    const third = await open(runA.runId);
    expect(third.status).toBe(200);

    // Streams that end free theirs too.
    const reading = [second, third, other].map((res) => readSse(res));
    hold.resolve();
    for (const { ended } of await Promise.all(reading)) expect(ended).toBe(true);
    const again = await Promise.all([open(runA.runId), open(runA.runId)]);
    expect(again.map((res) => res.status)).toEqual([200, 200]);
    for (const res of again) expect((await readSse(res)).ended).toBe(true);
  });
});
