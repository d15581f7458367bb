import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { benchSummary, recordBenchResult, spawnUntilRecord, treeCpuMicros } from '../src/bench.js';

describe('bench kit', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
    delete process.env.KINDGI_BENCH_RESULTS;
  });

  it('sums the CPU of a process tree, its busy grandchild included', async () => {
    // A shell whose child spins until it has spent 300 ms of its own CPU, then both wait to be killed (as a
    // group: killing the shell alone would leave the child holding the pipe open).
    const spin =
      'const t=process.cpuUsage();while(process.cpuUsage(t).user<300000);process.stdout.write("spun\\n");setInterval(()=>{},1000)';
    const parent = spawn('/bin/sh', ['-c', `"${process.execPath}" -e '${spin}'; true`], {
      stdio: 'pipe',
      detached: true,
    });
    try {
      await new Promise<void>((resolve) => parent.stdout.once('data', () => resolve()));
      const micros = treeCpuMicros(parent.pid as number);
      expect(micros).toBeGreaterThanOrEqual(300_000);
      expect(treeCpuMicros(process.pid)).toBeGreaterThanOrEqual(micros);
    } finally {
      process.kill(-(parent.pid as number), 'SIGKILL');
      await new Promise((resolve) => parent.once('close', resolve));
    }
  });

  it('records ratios with the date and load, one file per group', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindgi-bench-'));
    dirs.push(dir);
    process.env.KINDGI_BENCH_RESULTS = dir;
    const file = recordBenchResult({
      group: 'example',
      command: 'node bench.mjs',
      ratios: [{ name: 'PUT vs raw', value: 0.8, goal: 0.7, direction: 'atLeast' }],
    });
    expect(file).toBe(join(dir, 'example.json'));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ group: 'example', command: 'node bench.mjs', ratios: [{ value: 0.8 }] });
    expect(typeof saved.at).toBe('string');
    expect(typeof saved.load).toBe('number');
  });

  it('summarises every recorded group, goal by goal, and says when nothing was recorded', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kindgi-bench-'));
    dirs.push(dir);
    expect(benchSummary(dir)).toContain('No benchmark ratios recorded');
    process.env.KINDGI_BENCH_RESULTS = dir;
    recordBenchResult({
      group: 'storage',
      command: 'node a.mjs',
      ratios: [
        { name: 'PUT', value: 1.62, goal: 1.5, direction: 'atMost', detail: '810 vs 500 µs' },
        { name: 'GET', value: 1.21, goal: 1.5, direction: 'atMost' },
      ],
    });
    recordBenchResult({
      group: 'calls',
      command: 'node b.mjs',
      ratios: [{ name: 'CPU', value: 0.8, goal: 0.75, direction: 'atLeast' }],
    });
    const lines = benchSummary(dir).split('\n');
    expect(lines.find((line) => line.startsWith('| storage | PUT'))).toMatch(
      /\| 1\.62 \| ≤ 1\.5 \| no \| 810 vs 500 µs \|/,
    );
    expect(lines.find((line) => line.startsWith('| storage | GET'))).toMatch(/\| 1\.21 \| ≤ 1\.5 \| yes \|/);
    expect(lines.find((line) => line.startsWith('| calls | CPU'))).toMatch(/\| 0\.80 \| ≥ 0\.75 \| yes \|/);
  });

  it('waits for the record that makes a process ready, and rejects when it exits first', async () => {
    const script =
      'console.error("not json");console.error(JSON.stringify({event:"listening",url:"http://x"}));setInterval(()=>{},1000)';
    const ready = await spawnUntilRecord(['-e', script], {
      ready: (records) => records.some((r) => r.event === 'listening'),
    });
    try {
      expect(ready.records).toEqual([{ event: 'listening', url: 'http://x' }]);
    } finally {
      ready.child.kill('SIGKILL');
      await new Promise((resolve) => ready.child.once('close', resolve));
    }
    await expect(spawnUntilRecord(['-e', 'process.exit(3)'], { ready: () => true })).rejects.toThrow(/exited 3/);
  });
});
