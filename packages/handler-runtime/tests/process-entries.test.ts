import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createPackServiceClient,
  createPackServiceSupervisor,
  type PackServiceSupervisor,
} from '@kindgi/handler-runtime/pack-service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// The documented process entries, as built: `node dist/kindgi-index/main.js` and `node dist/pack-service/main.js`.
const indexMain = fileURLToPath(new URL('../dist/kindgi-index/main.js', import.meta.url));
const serviceMain = fileURLToPath(new URL('../dist/pack-service/main.js', import.meta.url));

function run(argv: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, argv, { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.once('close', (code) => resolve({ code, stderr }));
  });
}

let packDir = '';
let supervisor: PackServiceSupervisor | undefined;
beforeAll(async () => {
  for (const entry of [indexMain, serviceMain]) {
    if (!existsSync(entry)) throw new Error(`Build @kindgi/handler-runtime first: ${entry} is missing`);
  }
  packDir = mkdtempSync(join(tmpdir(), 'kindgi-entries-'));
  await mkdir(join(packDir, 'tools'));
  writeFileSync(join(packDir, 'kindgi.config.mjs'), "export default { pack: { id: 'acme', version: '1.0.0' } };\n");
  writeFileSync(
    join(packDir, 'tools/lookup.mjs'),
    `export default {
  id: 'acme.lookup',
  description: 'Looks a term up',
  input: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
  output: { type: 'object' },
  handler: async (input) => ({ hits: [input.q] }),
};
`,
  );
});
afterAll(async () => {
  await supervisor?.close();
  rmSync(packDir, { recursive: true, force: true });
});

describe('@kindgi/handler-runtime process entries', () => {
  it('kindgi-index-main indexes a pack, and pack-service-main serves it behind the supervisor', async () => {
    const indexPath = join(packDir, 'dist/index.json');
    const indexed = await run([
      indexMain,
      '--pack-dir',
      packDir,
      '--output',
      indexPath,
      '--artifact-version',
      '20260920.1',
      '--published-at',
      '2026-09-20T14:32:07.104Z',
    ]);
    expect(indexed).toMatchObject({ code: 0 });
    expect(JSON.parse(readFileSync(indexPath, 'utf8'))).toMatchObject({
      packId: 'acme',
      artifactVersion: '20260920.1',
    });

    supervisor = createPackServiceSupervisor({
      command: [process.execPath, serviceMain],
      moduleRoot: packDir,
      env: () => ({ PATH: process.env.PATH ?? '' }),
    });
    const front = await supervisor.listen();
    const started = await supervisor.start(indexPath);
    expect(started.kind).toBe('ok');
    const client = createPackServiceClient(front);
    const reply = await client.invoke({
      tool: { id: 'acme.lookup' },
      input: { q: 'backpay' },
      ctx: { tenantId: 't', runId: 'r' },
    });
    expect(reply).toEqual({ kind: 'ok', value: { v: 2, kind: 'result', output: { hits: ['backpay'] } } });
    const info = await client.info();
    expect(info).toMatchObject({ kind: 'ok', value: { packId: 'acme', artifactVersion: '20260920.1' } });
    await client.close();
  });
});
