import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A running `moto_server`: an S3-compatible endpoint on 127.0.0.1, in memory, gone when stopped. */
export interface MotoServer {
  /** `http://127.0.0.1:<port>`, for `S3Client({ endpoint, forcePathStyle: true })`. */
  readonly endpoint: string;
  /** The child's pid, for reading its CPU time from `/proc/<pid>/stat`. */
  readonly pid: number;
  /** Stops the server and waits for it to exit. Safe to call twice. */
  stop(): Promise<void>;
}

// src/moto.ts and dist/moto.js both sit two folders below the package, three below the repository.
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');

/** The CI virtualenv's `bin/` folder: `KINDGI_TEST_VENV` when set, else `<repo>/.ci/venv`. */
export function testVenvBin(): string {
  const venv = process.env.KINDGI_TEST_VENV;
  return join(venv !== undefined && venv !== '' ? venv : join(repoRoot, '.ci', 'venv'), 'bin');
}

const LISTENING = /Running on (http:\/\/127\.0\.0\.1:\d+)/;

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Starts `moto_server` on a free 127.0.0.1 port (it binds port 0 and prints the port it got) and resolves
 * once it listens. Fails with moto's own output when it exits first or does not listen within `timeoutMs`.
 */
export async function startMotoServer(options: { timeoutMs?: number } = {}): Promise<MotoServer> {
  const command = join(testVenvBin(), 'moto_server');
  if (!existsSync(command)) {
    throw new Error(`${command} is missing: .ci/run creates the virtualenv (or set KINDGI_TEST_VENV)`);
  }
  const child = spawn(command, ['-H', '127.0.0.1', '-p', '0'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, PYTHONUNBUFFERED: '1', AWS_DEFAULT_REGION: 'us-east-1' },
  });
  let output = '';
  const endpoint = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`moto_server did not listen within ${options.timeoutMs ?? 30_000} ms: ${output}`));
    }, options.timeoutMs ?? 30_000);
    const onData = (data: Buffer) => {
      output += data.toString();
      const found = LISTENING.exec(output);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (cause) => {
      clearTimeout(timer);
      reject(cause);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`moto_server exited (${code ?? signal}) before listening: ${output}`));
    });
  });
  // Request logs keep flowing; reading them keeps the pipes from filling and blocking the server.
  child.stdout!.resume();
  child.stderr!.resume();
  // A test process that ends without stopping it (a crash, a timeout) takes the server down with it.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);
  let stopping: Promise<void> | undefined;
  return {
    endpoint,
    pid: child.pid!,
    stop() {
      stopping ??= (async () => {
        const done = exited(child);
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await done;
        clearTimeout(timer);
        process.off('exit', onExit);
      })();
      return stopping;
    },
  };
}

/** A TCP relay on 127.0.0.1 in front of a real server, which a test can cut (refusing connections) and restore. */
export interface CuttableRelay {
  /** `http://127.0.0.1:<port>`: the same port before and after a cut. */
  readonly endpoint: string;
  /** Destroys every relayed connection and stops listening: the target is unreachable. */
  cut(): Promise<void>;
  /** Listens again on the same port. */
  restore(): Promise<void>;
  close(): Promise<void>;
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
}

/**
 * Starts a relay to `target` (`http://host:port`), for outage tests: the object store "unreachable" without
 * losing what it holds, then back on the same endpoint.
 */
export async function startRelay(target: string): Promise<CuttableRelay> {
  const { hostname, port: targetPort } = new URL(target);
  const sockets = new Set<Socket>();
  const relay = (client: Socket) => {
    const upstream = connect(Number(targetPort), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  };
  let server = createServer(relay);
  const port = await listen(server, 0);
  let listening = true;
  const stop = async () => {
    if (!listening) return;
    listening = false;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const socket of sockets) socket.destroy();
    await closed;
  };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut: stop,
    async restore() {
      if (listening) return;
      server = createServer(relay);
      await listen(server, port);
      listening = true;
    },
    close: stop,
  };
}
