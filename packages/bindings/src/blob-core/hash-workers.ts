import { createHash } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';

/** The digests a body gets, each computed once per body. */
export type HashAlgorithm = 'md5' | 'sha256';

// The worker's whole program, as text: it runs the same in sources, builds and bundles, with no file of its own
// to resolve. A session holds one hash per algorithm it was opened with; every update is acknowledged so the
// sender knows when the worker is done reading the bytes.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const sessions = new Map();
parentPort.on('message', (message) => {
  switch (message.op) {
    case 'open':
      sessions.set(message.id, message.algorithms.map((algorithm) => createHash(algorithm)));
      return;
    case 'update':
      for (const hash of sessions.get(message.id)) hash.update(message.bytes);
      parentPort.postMessage({ op: 'updated', id: message.id });
      return;
    case 'digest': {
      const hashes = sessions.get(message.id);
      sessions.delete(message.id);
      parentPort.postMessage({ op: 'digest', id: message.id, hex: hashes.map((hash) => hash.digest('hex')) });
      return;
    }
    case 'drop':
      // Every update before it was answered already: the sender may forget the session on this answer.
      sessions.delete(message.id);
      parentPort.postMessage({ op: 'dropped', id: message.id });
      return;
  }
});
`;

interface Pending {
  onUpdated(): void;
  onDigest(hex: string[]): void;
  onFailure(cause: Error): void;
}

/** One worker thread and the sessions it hashes; a worker that fails fails all of them, and is not reused. */
class HashWorker {
  private readonly sessions = new Map<number, Pending>();
  private readonly worker: Worker;
  failed = false;

  constructor() {
    this.worker = new Worker(WORKER_SOURCE, { eval: true, name: 'kindgi-hash' });
    // An idle worker must not keep the process alive; one with sessions must, or a body could wait forever.
    this.worker.unref();
    this.worker.on('message', (message: { op: string; id: number; hex?: string[] }) => {
      const pending = this.sessions.get(message.id);
      if (message.op === 'updated') pending?.onUpdated();
      else if (message.op === 'dropped') this.remove(message.id);
      else if (message.op === 'digest') {
        this.remove(message.id);
        pending?.onDigest(message.hex!);
      }
    });
    this.worker.on('error', (cause) => this.fail(cause));
    this.worker.on('exit', (code) => this.fail(new Error(`the hash worker exited (code ${code})`)));
  }

  has(id: number): boolean {
    return this.sessions.has(id);
  }

  add(id: number, pending: Pending): void {
    if (this.sessions.size === 0) this.worker.ref();
    this.sessions.set(id, pending);
  }

  post(message: object): void {
    this.worker.postMessage(message);
  }

  private remove(id: number): void {
    if (this.sessions.delete(id) && this.sessions.size === 0) this.worker.unref();
  }

  /** Ends the thread (tests use it to simulate a crash); its sessions fail. */
  async terminate(): Promise<void> {
    await this.worker.terminate();
  }

  private fail(cause: Error): void {
    if (this.failed) return;
    // The pool replaces a failed worker the next time its turn comes.
    this.failed = true;
    const sessions = [...this.sessions.values()];
    this.sessions.clear();
    for (const pending of sessions) pending.onFailure(cause);
  }
}

/**
 * Running hashes on a worker thread. Bytes handed to `update` must stay unchanged until the update settles;
 * `digest` resolves with lowercase hex, one per algorithm in the order opened, once every update was hashed.
 */
export interface WorkerHash {
  update(bytes: Uint8Array): Promise<void>;
  digest(): Promise<string[]>;
  /** Forgets the hash (the body failed); updates already sent are still answered. Safe to call at any time. */
  drop(): void;
}

let nextSession = 1;

/**
 * Worker threads hashing bodies off the event loop, in parallel with the disk writes. With two workers or
 * more a body's algorithms go to different workers and run in parallel with each other too; with one that
 * worker runs both; with none (`hashWorkerCount` below three cores) the calling thread hashes. Workers start
 * when first needed.
 */
export class HashWorkerPool {
  private readonly workers: HashWorker[] = [];
  private turn = 0;

  constructor(readonly size: number) {}

  /** Hashes of `algorithms` on the pool's next worker (on the calling thread in a pool of no workers). */
  open(algorithms: readonly HashAlgorithm[]): WorkerHash {
    if (this.size === 0) return localHash(algorithms);
    const worker = this.pick();
    const id = nextSession++;
    const updates: Array<{ resolve(): void; reject(cause: Error): void }> = [];
    let digest: { resolve(hex: string[]): void; reject(cause: Error): void } | undefined;
    let failure: Error | undefined;
    worker.add(id, {
      onUpdated: () => updates.shift()?.resolve(),
      onDigest: (hex) => digest?.resolve(hex),
      onFailure: (cause) => {
        failure = cause;
        for (const waiter of updates.splice(0)) waiter.reject(cause);
        digest?.reject(cause);
      },
    });
    worker.post({ op: 'open', id, algorithms });
    return {
      update: (bytes) =>
        new Promise<void>((resolve, reject) => {
          if (failure) return reject(failure);
          updates.push({ resolve, reject });
          worker.post({ op: 'update', id, bytes });
        }),
      digest: () =>
        new Promise<string[]>((resolve, reject) => {
          if (failure) return reject(failure);
          digest = { resolve, reject };
          worker.post({ op: 'digest', id });
        }),
      drop: () => {
        if (failure !== undefined || worker.failed || !worker.has(id)) return;
        // Kept until the worker answers, so the updates still queued there are answered (their slabs freed).
        worker.post({ op: 'drop', id });
      },
    };
  }

  /** Ends every worker (their sessions fail); the pool starts fresh ones when next used. */
  async terminate(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((worker) => worker.terminate()));
  }

  private pick(): HashWorker {
    const at = this.turn++ % this.size;
    let worker = this.workers[at];
    if (worker === undefined || worker.failed) {
      worker = new HashWorker();
      this.workers[at] = worker;
    }
    return worker;
  }
}

/**
 * Hashes on the calling thread, behind the worker hashes' interface: what a pool without workers opens. Each
 * update is hashed before it returns, so the bytes are free again at once.
 */
function localHash(algorithms: readonly HashAlgorithm[]): WorkerHash {
  let hashes = algorithms.map((algorithm) => createHash(algorithm));
  return {
    update: (bytes) => {
      for (const hash of hashes) hash.update(bytes);
      return Promise.resolve();
    },
    digest: () => Promise.resolve(hashes.map((hash) => hash.digest('hex'))),
    drop: () => {
      hashes = [];
    },
  };
}

let shared: HashWorkerPool | undefined;

/**
 * How many hash workers the process runs: `KINDGI_HASH_WORKERS` when set (0 hashes on the event loop), else
 * one per core beside the event loop's, at most four, and none below three cores. On two cores the event loop,
 * the disk writes and the client already share both: measured there, a worker made a 256 MiB PUT slower and
 * dearer in CPU than hashing on the event loop (docs/benchmarks/s3.md).
 */
export function hashWorkerCount(env: NodeJS.ProcessEnv = process.env, cores = availableParallelism()): number {
  const set = env.KINDGI_HASH_WORKERS;
  if (set !== undefined && /^\d+$/.test(set)) return Math.min(16, Number(set));
  return cores >= 3 ? Math.min(4, cores - 1) : 0;
}

/** The process's pool (`hashWorkerCount` workers: two hash a body at once, the rest serve concurrent bodies). */
export function hashWorkerPool(): HashWorkerPool {
  shared ??= new HashWorkerPool(hashWorkerCount());
  return shared;
}

/**
 * The buffers bodies are batched into, reused for the life of the process: shared memory when hash workers read
 * them, else plain buffers (writing a shared one to disk cost a 256 MiB PUT about a third more CPU here). A
 * buffer handed to a worker stays reachable there until that thread's garbage collector runs, which a worker
 * that allocates little seldom does: fresh buffers per batch would pile up, reused ones cannot. As many exist as
 * were ever in use at once (each body bounds its own share).
 */
export class SharedSlabs {
  private readonly free: Buffer[] = [];

  constructor(
    readonly slabBytes: number,
    private readonly shared = true,
  ) {}

  /** A free slab, or a new one. */
  acquire(): Buffer {
    const slab = this.free.pop();
    if (slab !== undefined) return slab;
    return this.shared ? Buffer.from(new SharedArrayBuffer(this.slabBytes)) : Buffer.allocUnsafeSlow(this.slabBytes);
  }

  /** Gives a slab back once nothing reads it any more. */
  release(slab: Buffer): void {
    this.free.push(slab);
  }
}
