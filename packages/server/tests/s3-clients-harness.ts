import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startMotoServer, testVenvBin } from '@kindgi/test-services/moto';
import { startPostgres } from '@kindgi/test-services/postgres';
import { makeTempDir, readCredentials, startServer, terminate, writeConfig } from './harness.js';

/** The Python scripts the S3 client tests run (boto3, pyarrow). */
export const CLIENTS_DIR = fileURLToPath(new URL('./clients/', import.meta.url));
/** The CI virtualenv's Python, with boto3 and pyarrow (`.ci/run` creates it). */
export const VENV_PYTHON = join(testVenvBin(), 'python');

/** Where a client reaches the S3 surface of a running `kindgi-server`, and with which key. */
export interface S3Target {
  /** `http://127.0.0.1:<port>/s3`. */
  endpoint: string;
  accessKeyId: string;
  secretKey: string;
  bucket: string;
}

/** A `kindgi-server` process in one storage topology, with whatever it runs on. */
export interface Topology {
  readonly name: string;
  /** Starts the server (and its database and object store); resolves once it listens. */
  start(): Promise<S3Target>;
  /** Stops everything `start` started, even when `start` failed half-way. Safe to call twice. */
  stop(): Promise<void>;
}

/** Runs the cleanups registered so far, newest first: what a half-started topology needs stopped. */
function cleanups(): { add(stop: () => Promise<unknown>): void; run(): Promise<void> } {
  const stops: (() => Promise<unknown>)[] = [];
  return {
    add: (stop) => stops.push(stop),
    async run() {
      for (const stop of stops.splice(0).reverse()) await stop();
    },
  };
}

/** The out-of-the-box deployment: no config, the default data dir (`.kindgi` in the working directory). */
export function embeddedTopology(): Topology {
  const started = cleanups();
  return {
    name: 'embedded (SQLite and files in .kindgi)',
    async start() {
      const dir = makeTempDir('s3-clients-embedded');
      const server = await startServer(null, { cwd: dir, env: { KINDGI_SERVER_PORT: '0' } });
      started.add(() => terminate(server));
      const { s3 } = readCredentials(join(dir, '.kindgi'));
      return { endpoint: `${server.url}/s3`, accessKeyId: s3.accessKeyId, secretKey: s3.secretKey, bucket: s3.bucket };
    },
    stop: () => started.run(),
  };
}

/** Metadata in PostgreSQL and bytes in an S3-compatible store (moto), as docs/scaling.md sets it up. */
export function scaledOutTopology(): Topology {
  const started = cleanups();
  return {
    name: 'PostgreSQL + S3-compatible object store (moto)',
    async start() {
      const pg = await startPostgres();
      started.add(() => pg.stop());
      const moto = await startMotoServer();
      started.add(() => moto.stop());
      const backendSecret = randomBytes(16).toString('hex');
      const admin = new S3Client({
        endpoint: moto.endpoint,
        region: 'us-east-1',
        forcePathStyle: true,
        credentials: { accessKeyId: 'backend', secretAccessKey: backendSecret },
      });
      await admin.send(new CreateBucketCommand({ Bucket: 'kindgi-blobs' }));
      admin.destroy();
      const target = {
        accessKeyId: `AKIA${randomBytes(8).toString('hex').toUpperCase()}`,
        secretKey: randomBytes(20).toString('hex'),
        bucket: 'artifacts',
      };
      const dir = makeTempDir('s3-clients-scaled');
      const config = writeConfig(dir, join(dir, 'data'), {
        packs: [],
        docs: false,
        drainMs: 5_000,
        tokens: [{ token: `tok-${randomBytes(12).toString('hex')}`, tenantId: 'acme' }],
        s3Credentials: [{ ...target, tenantId: 'acme' }],
        database: { url: await pg.createDatabase('s3_clients') },
        blobs: {
          kind: 's3',
          endpoint: moto.endpoint,
          region: 'us-east-1',
          bucket: 'kindgi-blobs',
          accessKeyId: 'backend',
          secretAccessKey: backendSecret,
          forcePathStyle: true,
        },
      });
      const server = await startServer(config);
      started.add(() => terminate(server));
      return { ...target, endpoint: `${server.url}/s3` };
    },
    stop: () => started.run(),
  };
}

/**
 * A hermetic environment for a client process: HOME and every config file in `dir`, no proxy, no AWS
 * settings inherited from the machine (a CA bundle or profile there would change what the client sends).
 * The S3 key is given both as AWS's variables (aws, rclone) and as the client scripts' (`clients/`).
 */
export function clientEnvironment(dir: string, target: S3Target, prefix: string): Record<string, string> {
  writeFileSync(join(dir, 'aws-config'), '[default]\nregion = us-east-1\ns3 =\n  addressing_style = path\n');
  return {
    PATH: '/usr/bin:/bin',
    HOME: dir,
    LANG: 'C.UTF-8',
    LC_ALL: 'C.UTF-8',
    TZ: 'UTC',
    AWS_CONFIG_FILE: join(dir, 'aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-credentials'),
    AWS_ACCESS_KEY_ID: target.accessKeyId,
    AWS_SECRET_ACCESS_KEY: target.secretKey,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_PAGER: '',
    NO_PROXY: '127.0.0.1',
    no_proxy: '127.0.0.1',
    // No __pycache__ beside the scripts in the repository.
    PYTHONDONTWRITEBYTECODE: '1',
    KINDGI_S3_ENDPOINT: target.endpoint,
    KINDGI_S3_ACCESS_KEY_ID: target.accessKeyId,
    KINDGI_S3_SECRET_ACCESS_KEY: target.secretKey,
    KINDGI_S3_BUCKET: target.bucket,
    KINDGI_S3_PREFIX: prefix,
  };
}

/** How a client process ended, with everything it printed. */
export interface ClientRun {
  code: number | null;
  stdout: string;
  /** The command line, then stdout and stderr: for failure messages. */
  output: string;
}

/**
 * Runs a client to its exit. One that outlives `timeoutMs` is killed (SIGKILL): no test leaves a client
 * running, and the kill shows in `output`.
 */
export function runClient(
  command: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<ClientRun> {
  const timeoutMs = options.timeoutMs ?? 120_000;
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { env: options.env, cwd: options.cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 16 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const killed = error?.killed === true ? `\n[killed after ${timeoutMs} ms]` : '';
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, output: `$ ${command} ${args.join(' ')}\n${stdout}${stderr}${killed}` });
      },
    );
  });
}

/** Runs one script of `clients/` with the venv's Python. */
export function runPythonClient(
  script: string,
  args: readonly string[],
  options: { env: Record<string, string>; cwd: string; timeoutMs?: number },
): Promise<ClientRun> {
  if (!existsSync(VENV_PYTHON)) {
    throw new Error(`${VENV_PYTHON} is missing: .ci/run creates the venv with boto3 and pyarrow`);
  }
  return runClient(VENV_PYTHON, [join(CLIENTS_DIR, script), ...args], options);
}
