import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceRecord } from '../src/supervisor/service-event.js';
import type { SupervisorEvent } from '../src/supervisor/types.js';

/** The pack the supervisor tests run: plain modules under tests/supervisor-pack. */
export const packDir = fileURLToPath(new URL('./supervisor-pack/', import.meta.url));

const mainJs = fileURLToPath(new URL('../dist/main.js', import.meta.url));

/** The real pack service process (the build's `dist/main.js`: `pnpm test` builds first). */
export function serviceCommand(): string[] {
  if (!existsSync(mainJs)) throw new Error(`${mainJs} is missing: build @kindgi/pack-service first`);
  return [process.execPath, mainJs];
}

const object = { type: 'object' };

/** Writes an index of the test pack with the given artifact version; `broken` names a module that is missing. */
export function writeIndex(dir: string, artifactVersion: string, options: { broken?: boolean } = {}): string {
  const tool = (name: string, input: Record<string, unknown>) => ({
    id: `supervisor-test.${name}`,
    input,
    output: object,
    modulePath: `tools/${name}.mjs`,
  });
  const tools = [
    tool('echo', {
      type: 'object',
      properties: { message: { type: 'string' }, delayMs: { type: 'integer', minimum: 0 } },
      required: ['message'],
    }),
    tool('env', object),
    tool('hold', { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
    tool('count', {
      type: 'object',
      properties: { path: { type: 'string' }, tag: { type: 'string' } },
      required: ['path', 'tag'],
    }),
  ];
  if (options.broken) tools.push({ ...tool('missing', object), modulePath: 'tools/missing.mjs' });
  const index = {
    v: 1,
    packId: 'supervisor-test',
    packVersion: '1.0.0',
    artifactVersion,
    publishedAt: '2026-01-01T00:00:00.000Z',
    tools,
    guardrails: [],
    agents: [],
    flows: [],
    env: { optional: ['SUPERVISOR_TEST_FOO'] },
  };
  const path = join(dir, `index-${artifactVersion}.json`);
  writeFileSync(path, `${JSON.stringify(index, null, 2)}\n`);
  return path;
}

/** A scratch directory removed by `dispose`. */
export function scratch(): { dir: string; dispose: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'kindgi-supervisor-'));
  return { dir, dispose: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Collects supervisor events and child records; `next` resolves on the first (past or future) match. */
export function recorder() {
  const events: SupervisorEvent[] = [];
  const records: ServiceRecord[] = [];
  const output: string[] = [];
  const waiters: Array<() => void> = [];
  const notify = (): void => {
    for (const waiter of waiters.splice(0)) waiter();
  };
  const until = <T>(find: () => T | undefined): Promise<T> =>
    new Promise((resolve) => {
      const check = (): void => {
        const found = find();
        if (found !== undefined) resolve(found);
        else waiters.push(check);
      };
      check();
    });
  return {
    events,
    records,
    output,
    onEvent: (event: SupervisorEvent) => {
      events.push(event);
      notify();
    },
    onLog: (record: ServiceRecord) => {
      records.push(record);
      notify();
    },
    onOutput: (line: string) => {
      output.push(line);
      notify();
    },
    /** The first event matching `match` (by `kind` and predicate), counting from index `from`. */
    event<K extends SupervisorEvent['kind']>(
      kind: K,
      match: (event: Extract<SupervisorEvent, { kind: K }>) => boolean = () => true,
      from = 0,
    ): Promise<Extract<SupervisorEvent, { kind: K }>> {
      return until(() =>
        events
          .slice(from)
          .find(
            (event): event is Extract<SupervisorEvent, { kind: K }> => event.kind === kind && match(event as never),
          ),
      );
    },
    record(match: (record: ServiceRecord) => boolean): Promise<ServiceRecord> {
      return until(() => records.find(match));
    },
    line(match: (line: string) => boolean): Promise<string> {
      return until(() => output.find(match));
    },
  };
}
