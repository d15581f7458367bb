// Drives each HTTP stack of ./candidates.py (pinned to one core) with the pack service benchmark's body:
// one caller, then 32 connections, and the stack's CPU per call from /proc/<pid>/stat.
//
//   node sdks/python/bench/candidates.mjs httptools httptools-uvloop streams-uvloop uvicorn-httptools-uvloop uvicorn-h11
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as wait } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));
const { runPackBenchmark, ECHO_BENCH_WORKLOAD } = await import(
  join(repoRoot, 'packages/pack-service/bench/driver.mjs')
);
const python = process.env.BENCH_PYTHON ?? join(repoRoot, '.ci/venv/bin/python');
const script = fileURLToPath(new URL('candidates.py', import.meta.url));

function cpuTicks(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

let port = 19400;
for (const stack of process.argv.slice(2)) {
  port += 1;
  const child = spawn('taskset', ['-c', process.env.BENCH_CPU ?? '0', python, script, stack, String(port)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    await new Promise((resolve) => child.stdout.once('data', resolve));
    await wait(500);
    const url = `http://127.0.0.1:${port}/v1/invoke`;
    const body = ECHO_BENCH_WORKLOAD.body;
    await runPackBenchmark({ url, body, connections: 4, durationSeconds: 1 });
    const one = await runPackBenchmark({ url, body, connections: 1, durationSeconds: 4 });
    const before = cpuTicks(child.pid);
    const many = await runPackBenchmark({ url, body, connections: 32, durationSeconds: 5 });
    const cpuUs = ((cpuTicks(child.pid) - before) * 10_000) / many.totalRequests;
    console.log(
      `${stack}: 1 connection ${Math.round(one.requestsPerSecond)}/s; 32 connections ${Math.round(many.requestsPerSecond)}/s, p99 ${many.latencyP99Ms} ms, ${cpuUs.toFixed(1)} µs CPU per call, ${many.failures} failures`,
    );
  } finally {
    child.kill();
  }
}
