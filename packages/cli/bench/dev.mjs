#!/usr/bin/env node
// `kindgi dev` on the example pack (docs/benchmarks/cli-dev.md): first call after start, save-to-new-code
// over 20 saves, and 1,000 calls spread across 20 reloads. Run: pnpm --filter @kindgi/cli bench
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const here = import.meta.dirname;
const CLI_MAIN = resolve(here, '..', 'dist', 'main.js');
const EXAMPLE = resolve(here, '..', '..', 'example-pack');
const PARTS = ['kindgi.config.ts', 'package.json', 'tools', 'guardrails', 'agents', 'flows', 'lib'];
const SAVES = 20;
const CALLS = 1000;
const TOOL = 'acme.format-citation';

function copyPack() {
  const root = mkdtempSync(join(tmpdir(), 'kindgi-bench-dev-'));
  const dir = join(root, 'pack');
  for (const part of PARTS) cpSync(join(EXAMPLE, part), join(dir, part), { recursive: true });
  symlinkSync(join(EXAMPLE, 'node_modules'), join(dir, 'node_modules'), 'dir');
  writeFileSync(join(dir, '.env'), 'ACME_API_BASE=https://cases.acme.invalid\n');
  return { root, dir };
}

async function call(dev) {
  try {
    const response = await fetch(`${dev.url}/v1/tools/${TOOL}/invoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${dev.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ input: { source: 'Bench', page: 2 } }),
    });
    const body = await response.json();
    return { ok: response.status === 200, citation: body.output?.citation ?? '' };
  } catch {
    return { ok: false, citation: '' };
  }
}

const percentile = (values, p) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

/** The `reindexed` events `kindgi dev --json` prints, with the time (ms since the epoch) each was read. */
function collectReloads(child) {
  const reloads = [];
  let pending = '';
  child.stdout.setEncoding('utf8').on('data', (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const event = line.trim() === '' ? undefined : JSON.parse(line);
      if (event?.event === 'reindexed') reloads.push(event);
    }
  });
  return reloads;
}

/**
 * One save's phases: the watcher noticing the write, the debounce, the re-index, the new service's boot up
 * to the swap, and the swap to the first call answering the new code (wall clock, so ±1 ms each).
 */
function phasesOf(reload, savedAt, calledAt) {
  const { waitMs, indexMs, bootMs } = reload.timings;
  const servedAt = Date.parse(reload.time);
  const seenAt = servedAt - waitMs - indexMs - bootMs;
  return { watch: seenAt - savedAt, debounce: waitMs, index: indexMs, boot: bootMs, call: calledAt - servedAt };
}

/** Polls `check` every `everyMs` until it holds; throws when `kindgi dev` exited or after a minute. */
async function until(child, check, everyMs, what) {
  const deadline = performance.now() + 60_000;
  while (!(await check())) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`kindgi dev exited waiting for ${what}`);
    if (performance.now() > deadline) throw new Error(`no ${what} within a minute`);
    await sleep(everyMs);
  }
}

async function main() {
  const { root, dir } = copyPack();
  const toolFile = join(dir, 'tools', 'format-citation', 'index.ts');
  const source = readFileSync(toolFile, 'utf8');
  // Each save changes the page marker the tool answers with (`p. 2` → `p1. 2` …), so a call shows which code ran.
  const save = (n) => writeFileSync(toolFile, source.replaceAll('`, p. ${', `\`, p${n}. \${`));
  const devFile = join(dir, '.kindgi', 'dev.json');
  const started = performance.now();
  const child = spawn(process.execPath, [CLI_MAIN, 'dev', '--pack-dir', dir, '--port', '0', '--json'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reloadEvents = collectReloads(child);
  try {
    await until(child, () => existsSync(devFile), 10, 'dev.json');
    const dev = JSON.parse(readFileSync(devFile, 'utf8'));
    await until(child, async () => (await call(dev)).ok, 10, 'a first call');
    const firstCallMs = performance.now() - started;

    const latencies = [];
    const phases = [];
    for (let n = 1; n <= SAVES; n++) {
      const saved = performance.now();
      const savedAt = Date.now();
      const seen = reloadEvents.length;
      save(n);
      await until(child, async () => (await call(dev)).citation.includes(`p${n}.`), 5, `save ${n}'s code`);
      latencies.push(performance.now() - saved);
      const calledAt = Date.now();
      await until(child, () => reloadEvents.length > seen, 5, `save ${n}'s reindexed event`);
      phases.push(phasesOf(reloadEvents[seen], savedAt, calledAt));
      await sleep(300);
    }

    // 1,000 calls across 20 more saves: 50 per reload, one every 20 ms from the save on, so they straddle the swap.
    let failures = 0;
    let sent = 0;
    let reloads = 0;
    const perReload = CALLS / SAVES;
    for (let n = SAVES + 1; n <= 2 * SAVES; n++) {
      save(n);
      reloads++;
      const calls = [];
      for (let i = 0; i < perReload; i++) {
        sent++;
        calls.push(call(dev).then((answer) => answer.ok || failures++));
        await sleep(20);
      }
      await Promise.all(calls);
      await until(child, async () => (await call(dev)).citation.includes(`p${n}.`), 5, `save ${n}'s code`);
    }
    const result = {
      firstCallMs: Math.round(firstCallMs),
      saveToNewCode: {
        saves: SAVES,
        p50Ms: Math.round(percentile(latencies, 50)),
        p95Ms: Math.round(percentile(latencies, 95)),
        maxMs: Math.round(Math.max(...latencies)),
      },
      // The median of each phase of a save (docs/benchmarks/cli-dev.md, "Where a save's time goes").
      phasesP50Ms: Object.fromEntries(
        Object.keys(phases[0]).map((name) => [
          name,
          percentile(
            phases.map((p) => p[name]),
            50,
          ),
        ]),
      ),
      callsAcrossReloads: { calls: sent, reloads, failures },
    };
    console.log(JSON.stringify(result, null, 2));
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      process.kill(-child.pid, 'SIGINT');
      await exited;
    }
    rmSync(root, { recursive: true, force: true });
  }
}

await main();
