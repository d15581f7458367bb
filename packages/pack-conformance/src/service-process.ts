import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createInterface } from 'node:readline';

/** One JSON record the service wrote on stderr. */
export type LogRecord = Record<string, unknown>;

/** How to start a service once. */
export interface ServiceStart {
  command: readonly string[];
  indexPath: string;
  moduleRoot: string;
  /** The whole environment the process gets (the suite adds nothing behind the caller's back). */
  env: Record<string, string>;
}

/** A service process and everything it has written so far. */
export interface ServiceProcess {
  readonly proc: ChildProcess;
  readonly records: LogRecord[];
  readonly stdout: string[];
  /** Resolves with the exit code and signal. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Resolves with the first record (seen or future) matching, or rejects when the process exits first. */
  record(match: (record: LogRecord) => boolean): Promise<LogRecord>;
  /** Resolves with the first stdout line (seen or future) matching, or rejects when the process exits first. */
  line(match: (line: string) => boolean): Promise<string>;
  /** SIGKILL unless already exited; for cleanup. */
  kill(): Promise<void>;
}

/** A token for one run: 32 random bytes in hex (printable ASCII, as the process contract asks). */
export function newToken(): string {
  return randomBytes(32).toString('hex');
}

/** Spawns `command --index … --module-root … --host 127.0.0.1` and follows its output. */
export function spawnService(start: ServiceStart): ServiceProcess {
  const [program, ...args] = start.command;
  const proc = spawn(
    program as string,
    [...args, '--index', start.indexPath, '--module-root', start.moduleRoot, '--host', '127.0.0.1'],
    { env: start.env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const records: LogRecord[] = [];
  const stdout: string[] = [];
  // The last lines of stderr that were not records (a runtime's crash report), for failure messages.
  const stderrText: string[] = [];
  const waiters = new Set<() => void>();
  let done = false;
  const notify = (): void => {
    for (const waiter of [...waiters]) waiter();
  };
  createInterface({ input: proc.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) records.push(parsed as LogRecord);
    } catch {
      // Pack code's own stderr output, or a runtime's crash report: not a record.
      stderrText.push(line);
      if (stderrText.length > 20) stderrText.shift();
    }
    notify();
  });
  createInterface({ input: proc.stdout as NodeJS.ReadableStream }).on('line', (line) => {
    stdout.push(line);
    notify();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    proc.once('error', () => resolve({ code: null, signal: null }));
    proc.once('close', (code, signal) => resolve({ code, signal }));
  });
  void exited.then(() => {
    done = true;
    notify();
  });
  const waitFor = <T>(find: () => T | undefined, what: string): Promise<T> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const found = find();
        if (found !== undefined) {
          waiters.delete(check);
          resolve(found);
        } else if (done) {
          waiters.delete(check);
          const said = [...records.map((record) => JSON.stringify(record)), ...stderrText].join('\n');
          reject(new Error(`The service exited before ${what}. It wrote:\n${said}`));
        }
      };
      waiters.add(check);
      check();
    });
  return {
    proc,
    records,
    stdout,
    exited,
    record: (match) => waitFor(() => records.find(match), 'the expected record'),
    line: (match) => waitFor(() => stdout.find(match), 'the expected output line'),
    async kill() {
      if (!done) proc.kill('SIGKILL');
      await exited;
    },
  };
}

/** The event name of a lifecycle record (`event`, or a bare legacy `kind`). */
export function eventOf(record: LogRecord): unknown {
  return record.event ?? record.kind;
}

/** A started service that listens: its base URL and token. */
export interface ListeningService extends ServiceProcess {
  url: string;
  port: number;
  token: string;
}

/** Starts a service with `PORT=0` and waits for its `listening` record (rejects if it exits first). */
export async function startListening(start: ServiceStart & { token: string }): Promise<ListeningService> {
  const service = spawnService({
    ...start,
    env: { ...start.env, KINDGI_PACK_SERVICE_TOKEN: start.token, PORT: '0', KINDGI_LOG_FORMAT: 'json' },
  });
  try {
    const listening = await service.record((record) => eventOf(record) === 'listening');
    const port = listening.port;
    if (typeof port !== 'number')
      throw new Error(`The listening record has no numeric port: ${JSON.stringify(listening)}`);
    return Object.assign(service, { url: `http://127.0.0.1:${port}`, port, token: start.token });
  } catch (error) {
    await service.kill();
    throw error;
  }
}
