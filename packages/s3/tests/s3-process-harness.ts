import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUCKET, KEY_ID, SECRET, TENANT } from './s3-harness.js';

/** The built `kindgi-server` entry these black-box tests spawn (`pnpm --filter @kindgi/server build` first). */
export const SERVER_MAIN = fileURLToPath(new URL('../../server/dist/main.js', import.meta.url));

/** A spawned `kindgi-server` with no packs: the S3 surface at `/s3` on `url` and at `/` on `s3Url`. */
export interface S3ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  readonly s3Url: string;
  readonly dataDir: string;
  /** Everything the process wrote on stderr so far (its JSON log), for failure messages. */
  log(): string;
  /** True while the process has not exited. */
  alive(): boolean;
  /** SIGTERM, wait for the exit, then remove the data directory unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/** Starts `kindgi-server` on free ports with one S3 credential (the harness's) and extra environment. */
export async function startServerProcess(
  env: Record<string, string> = {},
  reuseDataDir?: string,
): Promise<S3ServerProcess> {
  if (!existsSync(SERVER_MAIN)) throw new Error(`${SERVER_MAIN} is missing: build @kindgi/server first`);
  const dataDir = reuseDataDir ?? mkdtempSync(join(tmpdir(), 'kindgi-s3-process-'));
  const child = spawn(process.execPath, [SERVER_MAIN], {
    env: {
      PATH: process.env.PATH ?? '',
      KINDGI_SERVER_PORT: '0',
      KINDGI_SERVER_S3_PORT: '0',
      KINDGI_SERVER_DATA_DIR: dataDir,
      KINDGI_SERVER_DOCS: 'false',
      KINDGI_SERVER_TOKENS: JSON.stringify([{ token: 'process-test-token-0123456789', tenantId: TENANT }]),
      KINDGI_SERVER_S3_CREDENTIALS: JSON.stringify([
        { accessKeyId: KEY_ID, secretKey: SECRET, tenantId: TENANT, bucket: BUCKET },
      ]),
      ...env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const listening = await new Promise<{ url: string; s3Url: string }>((resolve, reject) => {
    child.stderr!.on('data', (data: Buffer) => {
      stderr += data.toString();
      for (const line of stderr.split('\n')) {
        if (!line.includes('"listening"')) continue;
        try {
          const record = JSON.parse(line) as { event?: string; url?: string; s3Url?: string };
          if (record.event === 'listening' && record.url && record.s3Url)
            resolve({ url: record.url, s3Url: record.s3Url });
        } catch {
          // A partial line: the rest is still to come.
        }
      }
    });
    void exit.then(() => reject(new Error(`kindgi-server exited before listening:\n${stderr}`)));
  });
  return {
    child,
    ...listening,
    dataDir,
    log: () => stderr,
    alive: () => !exited,
    async stop(options) {
      if (!exited) {
        child.kill('SIGTERM');
        await exit;
      }
      if (!options?.keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
