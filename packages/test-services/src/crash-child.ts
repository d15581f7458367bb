import { type ChildProcess, spawn } from 'node:child_process';

/** How to start a fixture script a test means to kill. */
export interface CrashChildOptions {
  /** The package folder: tsx and the `source` condition resolve from here. */
  cwd: string;
  /** The child is ready (mid-way through what it does) once its stdout holds any of these. */
  readyOn: readonly string[];
}

/** The fixture children one test file starts and kills. */
export interface CrashChildren {
  /**
   * Runs `node --conditions=source --import tsx <script> ...args` and resolves once its stdout says it is
   * ready. Rejects with its output if it exits first.
   */
  start(script: string, args: readonly string[], options: CrashChildOptions): Promise<ChildProcess>;
  /** SIGKILLs a child (the crash under test) and resolves once it has exited. */
  kill(child: ChildProcess): Promise<void>;
  /** SIGKILLs every child still running: for `afterEach`, so no test leaves one behind. */
  killAll(): void;
}

/** Children for crash tests: a process killed at a known point, then the data it left behind examined. */
export function crashChildren(): CrashChildren {
  const children: ChildProcess[] = [];
  return {
    start(script, args, { cwd, readyOn }) {
      const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', script, ...args], {
        cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      return new Promise((resolve, reject) => {
        let out = '';
        let errors = '';
        child.stdout!.on('data', (data: Buffer) => {
          out += data.toString();
          if (readyOn.some((marker) => out.includes(marker))) resolve(child);
        });
        child.stderr!.on('data', (data: Buffer) => {
          errors += data.toString();
        });
        child.on('exit', (code) => reject(new Error(`child exited (${code}) before it was ready: ${out} ${errors}`)));
      });
    },
    kill(child) {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
    killAll() {
      for (const child of children.splice(0))
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
