import type { Result } from '@kindgi/protocol';
import type { ServiceRecord } from './service-event.js';

/** The child's argv (program first), or a function producing it, called before every start. */
export type SupervisorCommand = readonly string[] | (() => readonly string[] | Promise<readonly string[]>);

/** Restart delays for a child that exits on its own: `initialMs * factor^(attempt-1)`, capped at `maxMs`. */
export interface RestartBackoff {
  initialMs?: number;
  maxMs?: number;
  factor?: number;
}

export interface PackServiceSupervisorOptions {
  /**
   * Any pack service keeping the process contract; `--index`, `--module-root` and `--host` are appended,
   * and `--token-fd 3` unless `tokenVia` is `env`.
   */
  command: SupervisorCommand;
  /**
   * How the child gets the session token: `fd` (default) writes it to the child's descriptor 3 and passes
   * `--token-fd 3`, so no environment block holds it; `env` sets `KINDGI_PACK_SERVICE_TOKEN`, for a
   * command that does not know `--token-fd`.
   */
  tokenVia?: 'fd' | 'env';
  /** Passed as `--module-root`: where the index's module paths resolve. */
  moduleRoot: string;
  /** The child's environment (called before every start); `PORT=0` and JSON logs are added (and the token with `tokenVia: 'env'`). */
  env: () => Record<string, string | undefined>;
  /** The child's working directory. */
  cwd?: string;
  /**
   * The account the child runs as (needs a root supervisor): pack code then cannot read what the
   * supervisor's user owns, nor `/proc/<supervisor>/environ`. Supplementary groups are dropped.
   */
  user?: { uid: number; gid: number };
  /** The session token; generated (24 random bytes, base64url) when absent. Must match `^[A-Za-z0-9_-]{32,}$`. */
  token?: string;
  /** The front's address: `127.0.0.1` unless given. */
  host?: string;
  /** The front's port: any free one (0) unless given. */
  port?: number;
  /** Every structured record a child writes on stderr. */
  onLog?: (record: ServiceRecord) => void;
  /** Every other line a child writes (pack code's console output, tracebacks). */
  onOutput?: (line: string, stream: 'stdout' | 'stderr', pid: number) => void;
  /** The supervisor's own lifecycle. */
  onEvent?: (event: SupervisorEvent) => void;
  restartBackoff?: RestartBackoff;
  /** A child that neither listens nor exits within this is killed and the start fails (default 60 s). */
  bootTimeoutMs?: number;
  /** How long a replaced child may finish its in-flight calls before SIGTERM (default 30 s). */
  drainMs?: number;
  /** How long after SIGTERM before SIGKILL (default 10 s: the service itself drains for up to 8 s). */
  killAfterMs?: number;
  /**
   * How long the front holds a call while no child serves but one is coming (a crashed child restarting, or
   * a first `start()` booting), before answering 503 instead (default 10 s; 0 answers 503 at once). A call's
   * own `kindgi-timeout-ms`, when smaller, bounds its hold too.
   */
  holdWhileRestartingMs?: number;
  /** The most calls held at once; one more is answered 503 at once (default 1000). */
  maxHeldCalls?: number;
  /** The largest child reply the front relays (default `DEFAULT_MAX_OUTPUT_BYTES`); past it: 502. */
  maxReplyBytes?: number;
  /**
   * Keep one spare child started ahead of the next `start()` (default off; only with `tokenVia: 'fd'`): it
   * loads node and the service's code, then waits for its token, so a reload skips that part of the boot.
   * A start whose argv, environment, `cwd` or `user` differ from the spare's kills it and spawns afresh.
   * For development, where a watched pack restarts on every save; it costs one idle process.
   */
  warmSpare?: boolean;
}

/** Why the front answered a call 503 (the call did not run). */
export type UnavailableReason =
  /** No child serves and none is coming: never started, after `stop()` or `close()`, or a failed `start()`. */
  | 'not-running'
  /** The restart (or start) that was coming failed to boot, and no child serves. */
  | 'boot-failed'
  /** A child is coming but the call may not wait (`holdWhileRestartingMs: 0`). */
  | 'restarting'
  /** The hold reached its bound (`holdWhileRestartingMs`, or the call's `kindgi-timeout-ms`). */
  | 'hold-timeout'
  /** `maxHeldCalls` calls were already held. */
  | 'hold-full';

/** What the supervisor did, for logs and tests. */
export type SupervisorEvent =
  | { kind: 'front-listening'; url: string }
  | { kind: 'child-spawned'; pid: number; indexPath: string; reason: 'start' | 'restart'; spare?: true }
  /** `warmSpare`: a child started ahead of the next start; it waits for its token (`child-spawned` takes it). */
  | { kind: 'spare-spawned'; pid: number }
  | { kind: 'child-serving'; pid: number; port: number; replaced?: number }
  | { kind: 'boot-failed'; pid?: number; problems: string[]; exitCode: number | null; signal: string | null }
  | { kind: 'child-retiring'; pid: number }
  | { kind: 'child-exited'; pid: number; exitCode: number | null; signal: string | null; expected: boolean }
  | { kind: 'restart-scheduled'; attempt: number; delayMs: number }
  /** The front holds a call until a child serves; `held` counts the calls held now, this one included. */
  | { kind: 'call-held'; held: number }
  /** A held call left the hold: forwarded to the child now serving, answered 503, or its caller disconnected. */
  | {
      kind: 'call-released';
      outcome: 'forwarded' | 'unavailable' | 'caller-left';
      reason?: UnavailableReason;
      heldMs: number;
      held: number;
    }
  /** A call answered 503 at once because `maxHeldCalls` calls were already held. */
  | { kind: 'call-refused'; reason: 'hold-full'; held: number }
  | { kind: 'stopped' }
  | { kind: 'closed' };

/** Why a start did not produce a serving child (the previous child, if any, keeps serving). */
export interface SupervisorStartError {
  code: 'boot-failed' | 'boot-timeout' | 'spawn-failed' | 'command-invalid' | 'stopped';
  message: string;
  /** The child's own account (`boot-failed` / `config-invalid` records). */
  problems: string[];
  exitCode: number | null;
  signal: string | null;
  /** The child's last non-record output lines (a traceback, a runtime's error). */
  output: string[];
}

/** The child that now serves. */
export interface SupervisorStarted {
  pid: number;
  /** The child's own port on 127.0.0.1 (callers should use the front). */
  port: number;
}

/** The front's address and session token: stable for the supervisor's whole life. */
export interface SupervisorFront {
  url: string;
  token: string;
}

/** A pack service behind a stable front: one URL and token while children come and go. */
export interface PackServiceSupervisor {
  /** Opens the front (idempotent). Rejects with a `SupervisorError` when the address can't be bound. */
  listen(): Promise<SupervisorFront>;
  /** Boots a child on `indexPath` and switches calls to it once it listens; never throws. */
  start(indexPath: string): Promise<Result<SupervisorStarted, SupervisorStartError>>;
  /** Stops every child and any pending restart; held calls and new ones are answered 503. */
  stop(): Promise<void>;
  /** `stop()`, then closes the front. */
  close(): Promise<void>;
  /** The session token (fixed for the supervisor's life). */
  readonly token: string;
  /** The front's URL once listening. */
  readonly url: string | undefined;
  /** The serving child's process id. */
  readonly servingPid: number | undefined;
}
