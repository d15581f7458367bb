import { type ChildProcess, spawn } from 'node:child_process';

/** What a finished command printed and how it exited. */
export interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `command` to its exit with exactly `env` (nothing inherited: `env -i` plus what is named). */
export function runCommand(command: string, args: string[], cwd: string, env: Record<string, string>): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A running pack service process and the port its `listening` record named. */
export interface RunningService {
  child: ChildProcess;
  port: number;
  stderr(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
}

function listeningPort(line: string): number | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const record = JSON.parse(line) as Record<string, unknown>;
    const isListening = record.event === 'listening' || record.kind === 'listening';
    return isListening && typeof record.port === 'number' ? record.port : undefined;
  } catch {
    return undefined;
  }
}

/** Starts a pack service (`PORT=0` is the caller's to set) and resolves once it logs `listening`. */
export function startService(
  command: string,
  args: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<RunningService> {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let text = '';
  let pending = '';
  return new Promise((resolve, reject) => {
    const service: RunningService = {
      child,
      port: 0,
      stderr: () => text,
      async stop() {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        await exited;
      },
    };
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      pending += chunk;
      let newline = pending.indexOf('\n');
      while (newline >= 0) {
        const port = listeningPort(pending.slice(0, newline).trim());
        pending = pending.slice(newline + 1);
        newline = pending.indexOf('\n');
        if (port !== undefined && service.port === 0) {
          service.port = port;
          resolve(service);
        }
      }
    });
    child.once('error', reject);
    void exited.then(() => {
      if (service.port === 0) reject(new Error(`the pack service exited before listening:\n${text}`));
    });
  });
}
