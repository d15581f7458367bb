import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Linux's USER_HZ: `/proc/<pid>/stat` counts CPU time in hundredths of a second. */
export const TICK_MICROS = 10_000;

interface ProcStat {
  parent: number;
  ticks: number;
  childTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: the fields start after its last `)`.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      parent: Number(fields[1]),
      ticks: Number(fields[11]) + Number(fields[12]),
      childTicks: Number(fields[13]) + Number(fields[14]),
    };
  } catch {
    // The process exited between the listing and the read: its time is in its parent's reaped total.
    return undefined;
  }
}

/**
 * CPU time (user + system, µs) of `pid` and every live process below it, plus what its descendants that
 * already exited and were reaped spent: the whole tree a server runs as (pack children, PostgreSQL backends).
 *
 * @example
 * const before = treeCpuMicros(server.pid);
 * await drive(1000);
 * const perCall = (treeCpuMicros(server.pid) - before) / 1000;
 */
export function treeCpuMicros(pid: number): number {
  const stats = new Map<number, ProcStat>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat !== undefined) stats.set(Number(name), stat);
  }
  const children = new Map<number, number[]>();
  for (const [child, { parent }] of stats) children.set(parent, [...(children.get(parent) ?? []), child]);
  let ticks = 0;
  const pending = [pid];
  for (let at = pending.pop(); at !== undefined; at = pending.pop()) {
    const stat = stats.get(at);
    if (stat !== undefined) ticks += stat.ticks + stat.childTicks;
    pending.push(...(children.get(at) ?? []));
  }
  return ticks * TICK_MICROS;
}

/** One ratio a benchmark checks: `value` against its goal, in the direction `atLeast` or `atMost`. */
export interface BenchRatio {
  name: string;
  value: number;
  goal: number;
  direction: 'atLeast' | 'atMost';
  /** The figures the ratio is made of, e.g. `"PUT 412 vs 530 MiB/s"`. */
  detail?: string;
}

/** What one benchmark found, for `pnpm bench`'s closing summary. */
export interface BenchResult {
  group: string;
  command: string;
  ratios: BenchRatio[];
}

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** Where benchmarks leave their ratios: `$KINDGI_BENCH_RESULTS`, else `.bench-results/` in the repository. */
export function benchResultsDir(): string {
  return process.env.KINDGI_BENCH_RESULTS ?? join(REPO, '.bench-results');
}

/**
 * Records a benchmark's ratios (with the date and load average) as `<group>.json` for the summary
 * `pnpm bench` prints at its end (`scripts/bench-summary.mjs`).
 *
 * @example
 * recordBenchResult({ group: 's3-big-objects', command: 'pnpm --filter @kindgi/s3 bench', ratios: [
 *   { name: 'PUT vs raw', value: 0.74, goal: 0.7, direction: 'atLeast' },
 * ] });
 */
export function recordBenchResult(result: BenchResult): string {
  const dir = benchResultsDir();
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${result.group}.json`);
  const at = new Date().toISOString();
  writeFileSync(file, `${JSON.stringify({ ...result, at, load: loadavg()[0] }, null, 2)}\n`);
  return file;
}

interface SavedResult extends BenchResult {
  at: string;
  load: number;
}

function readResults(dir: string): SavedResult[] {
  let names: string[];
  try {
    names = readdirSync(dir).filter((name) => name.endsWith('.json'));
  } catch {
    return [];
  }
  return names.sort().flatMap((name) => {
    try {
      return [JSON.parse(readFileSync(join(dir, name), 'utf8')) as SavedResult];
    } catch {
      // A half-written file of a benchmark killed meanwhile: left out, not fatal to the summary.
      return [];
    }
  });
}

const met = ({ value, goal, direction }: BenchRatio) => (direction === 'atLeast' ? value >= goal : value <= goal);

/**
 * The ratios every benchmark recorded in `dir`, as a Markdown table: a group per benchmark, with when it ran,
 * the load average then, and whether each goal is met.
 */
export function benchSummary(dir = benchResultsDir()): string {
  const results = readResults(dir);
  if (results.length === 0) return `No benchmark ratios recorded in ${dir}.\n`;
  const rows = results.flatMap((result) =>
    result.ratios.map(
      (ratio) =>
        `| ${result.group} | ${ratio.name} | ${ratio.value.toFixed(2)} | ${ratio.direction === 'atLeast' ? '≥' : '≤'} ${ratio.goal} | ${met(ratio) ? 'yes' : 'no'} | ${ratio.detail ?? ''} | ${result.at} (load ${result.load.toFixed(1)}) |`,
    ),
  );
  return [
    '| group | ratio | value | goal | met | figures | measured |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}

/** A process a benchmark started, once it logged what `ready` waits for. */
export interface ReadyProcess {
  child: ChildProcessWithoutNullStreams;
  /** Every JSON record it logged until then (e.g. `listening`, with its `url`). */
  records: Record<string, unknown>[];
}

/**
 * Starts `node <args>` with only PATH and HOME (plus `env`) and resolves once a JSON line on its stderr makes
 * `ready` true, given every record so far (a server may log `listening` before or after its pack serves);
 * rejects if it exits first.
 *
 * @example
 * const server = await spawnUntilRecord([SERVER_MAIN, '--config', path], {
 *   ready: (records) => records.some((r) => r.event === 'listening'),
 * });
 */
export function spawnUntilRecord(
  args: string[],
  options: { ready: (records: Record<string, unknown>[]) => boolean; env?: NodeJS.ProcessEnv },
): Promise<ReadyProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...options.env },
    stdio: ['ignore', 'ignore', 'pipe'],
  }) as unknown as ChildProcessWithoutNullStreams;
  const records: Record<string, unknown>[] = [];
  return new Promise((resolve, reject) => {
    let pending = '';
    const onData = (chunk: string) => {
      pending += chunk;
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        try {
          records.push(JSON.parse(line) as Record<string, unknown>);
        } catch {
          continue; // Not a record (a pack's own output): it cannot make the process ready.
        }
        if (!options.ready(records)) continue;
        // Ready: later lines are drained unread, so a long benchmark neither keeps them nor blocks the process.
        child.stderr.off('data', onData).resume();
        resolve({ child, records });
        return;
      }
    };
    child.stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/**
 * A TypeScript pack for a benchmark: `kindgi.config.ts` (pack `bench` 1.0.0) and `tools/<name>/index.ts` per
 * entry of `tools`, with `node_modules` linked to `nodeModules` (the example pack's, which has the SDK).
 */
export function writeBenchPack(root: string, tools: Record<string, string>, nodeModules: string): string {
  const dir = join(root, 'pack');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'kindgi.config.ts'),
    "import { defineConfig } from '@kindgi/sdk';\nexport default defineConfig({ pack: { id: 'bench', version: '1.0.0' } });\n",
  );
  writeFileSync(join(dir, 'package.json'), '{"name":"bench-pack","private":true,"type":"module"}\n');
  for (const [name, source] of Object.entries(tools)) {
    mkdirSync(join(dir, 'tools', name), { recursive: true });
    writeFileSync(join(dir, 'tools', name, 'index.ts'), source);
  }
  symlinkSync(nodeModules, join(dir, 'node_modules'), 'dir');
  return dir;
}
