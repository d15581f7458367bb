// A tool call's latency through kindgi-server with the pack as a supervised child vs as a remote pack
// service, measured in one run, rounds interleaved so both see the same machine load. The direct call to
// the pack service (no API, no supervisor) is the floor.
//
//   pnpm --filter @kindgi/server build && node packages/server/bench/remote-pack.mjs [calls-per-round] [rounds]
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runIndexer } from '@kindgi/indexer';
import { createPackServiceClient } from '@kindgi/pack-service';

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const SERVER_MAIN = here('../dist/main.js');
const PACK_MAIN = here('../../pack-service/dist/main.js');
const PACK_DIR = here('../../example-pack');
const TSX = pathToFileURL(here('../node_modules/tsx/dist/esm/index.mjs')).href;
const TOKEN = 'bench-api-token-0123456789abcdef';
const PACK_TOKEN = 'bench-pack-token-0123456789abcdef';
const PER_ROUND = Number(process.argv[2] ?? 500);
const ROUNDS = Number(process.argv[3] ?? 6);
const BODY = JSON.stringify({ input: { source: 'Brown v. Board', page: 483 } });
const ENV = { ACME_API_BASE: 'https://cases.acme.invalid' };

const children = [];
function start(args, env, readyEvent, extraStdio = []) {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'ignore', 'pipe', ...extraStdio],
  });
  children.push(child);
  return new Promise((resolve, reject) => {
    let pending = '';
    child.stderr.setEncoding('utf8').on('data', (chunk) => {
      pending += chunk;
      for (let at = pending.indexOf('\n'); at >= 0; at = pending.indexOf('\n')) {
        const line = pending.slice(0, at);
        pending = pending.slice(at + 1);
        try {
          const record = JSON.parse(line);
          if (record.event === readyEvent) resolve({ child, record });
        } catch {}
      }
    });
    child.once('exit', (code) => reject(new Error(`${args[args.length - 1]} exited ${code}`)));
  });
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function timeCalls(call, count) {
  const samples = [];
  for (let i = 0; i < count; i++) {
    const begin = process.hrtime.bigint();
    await call();
    samples.push(Number(process.hrtime.bigint() - begin) / 1e6);
  }
  return samples;
}

async function viaApi(url) {
  const response = await fetch(`${url}/v1/tools/acme.format-citation/invoke`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: BODY,
  });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
}

const work = mkdtempSync(join(tmpdir(), 'kindgi-remote-bench-'));
try {
  const indexPath = join(work, 'index.json');
  const indexed = await runIndexer({ packDir: PACK_DIR, outputPath: indexPath });
  if (indexed.kind === 'err') throw new Error(indexed.error.message);
  const packArgs = [
    '--import',
    TSX,
    PACK_MAIN,
    '--index',
    indexPath,
    '--module-root',
    PACK_DIR,
    '--host',
    '127.0.0.1',
    '--token-fd',
    '3',
  ];
  const packStarting = start(packArgs, { ...ENV, PORT: '0', KINDGI_LOG_FORMAT: 'json' }, 'listening', ['pipe']);
  children.at(-1).stdio[3].end(PACK_TOKEN);
  const pack = await packStarting;
  const packUrl = `http://127.0.0.1:${pack.record.port}`;

  const servers = {};
  for (const [name, packs] of [
    ['child', [{ dir: PACK_DIR, env: ENV }]],
    ['remote', [{ url: packUrl, token: PACK_TOKEN }]],
  ]) {
    const configPath = join(work, `${name}.json`);
    const config = {
      host: '127.0.0.1',
      port: 0,
      dataDir: join(work, name),
      docs: false,
      tokens: [{ token: TOKEN, tenantId: 'bench' }],
      packs,
    };
    writeFileSync(configPath, JSON.stringify(config));
    const { record } = await start([SERVER_MAIN, '--config', configPath], {}, 'listening');
    servers[name] = record.url;
  }
  const client = createPackServiceClient({ url: packUrl, token: PACK_TOKEN });
  const ctx = { tenantId: 'bench', projectId: 'bench', orgId: 'bench', runId: '', requestId: 'bench' };
  const direct = async () => {
    const reply = await client.invoke({
      tool: 'acme.format-citation',
      input: { source: 'Brown v. Board', page: 483 },
      ctx,
    });
    if (reply.kind !== 'ok' || reply.value.kind !== 'result') throw new Error(JSON.stringify(reply));
  };
  const targets = { direct, child: () => viaApi(servers.child), remote: () => viaApi(servers.remote) };
  for (const call of Object.values(targets)) await timeCalls(call, 200); // warm-up
  const samples = { direct: [], child: [], remote: [] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, call] of Object.entries(targets)) samples[name].push(...(await timeCalls(call, PER_ROUND)));
  }
  await client.close();
  const rows = Object.entries(samples).map(([name, list]) => {
    const sorted = [...list].sort((a, b) => a - b);
    return { name, calls: sorted.length, p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
  });
  const by = Object.fromEntries(rows.map((row) => [row.name, row]));
  console.log(
    `# remote pack bench: ${ROUNDS} rounds x ${PER_ROUND} sequential calls (acme.format-citation), ${new Date().toISOString()}, Node ${process.version}`,
  );
  console.log('| path | calls | p50 ms | p99 ms |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(`| ${row.name} | ${row.calls} | ${row.p50.toFixed(3)} | ${row.p99.toFixed(3)} |`);
  console.log(
    `remote - child: p50 ${(by.remote.p50 - by.child.p50).toFixed(3)} ms, p99 ${(by.remote.p99 - by.child.p99).toFixed(3)} ms`,
  );
} finally {
  // SIGTERM, so each server stops its own pack service child; SIGKILL only for one that hangs.
  await Promise.all(
    children.map(
      (child) =>
        new Promise((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    ),
  );
  rmSync(work, { recursive: true, force: true });
}
