import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The file whose lock says who owns a blob directory, and the note naming the owner's pid (for messages). */
const LOCK_FILE = 'owner.lock';
const PID_FILE = 'owner.pid';

/** This process's hold on a blob directory, until `release()` or the process's end. */
export interface DirectoryLock {
  release(): void;
}

function isBusy(cause: unknown): boolean {
  const code = (cause as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** The pid the owner noted, when the note is readable: only for the message, never for the decision. */
function notedOwner(dir: string): string {
  try {
    const pid = readFileSync(join(dir, PID_FILE), 'utf8').trim();
    return /^\d+$/.test(pid) ? `process ${pid}` : 'another process';
  } catch {
    return 'another process';
  }
}

/**
 * Claims a blob directory for this process. The sweep at open deletes temporary and unreferenced files, which
 * would destroy a second live process's writes in flight, so only one process may own a directory at a time.
 *
 * The claim is an operating-system lock, not a recorded pid: a SQLite database in the directory opened in
 * exclusive locking mode, whose first write transaction keeps the file's write lock (an fcntl lock) until the
 * connection closes. The kernel drops it when the process ends however it ends, so a restart right after
 * `kill -9` claims the directory at once, whether the old process is a zombie or its pid was reused.
 * Returns the lock, or who holds the directory (`process <pid>`, as its owner noted it).
 */
export function claimDirectory(dir: string): { lock: DirectoryLock } | { owner: string } {
  mkdirSync(dir, { recursive: true });
  // No busy wait: a held lock is an owner, not a moment of contention.
  const db = new Database(join(dir, LOCK_FILE), { timeout: 0 });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The table only carries the lock: no journal file beside it.
    db.pragma('journal_mode = OFF');
    db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS owner (pid INTEGER NOT NULL, opened_at TEXT NOT NULL)');
    db.prepare('DELETE FROM owner').run();
    db.prepare('INSERT INTO owner (pid, opened_at) VALUES (?, ?)').run(process.pid, new Date().toISOString());
    db.exec('COMMIT');
  } catch (cause) {
    db.close();
    if (isBusy(cause)) return { owner: notedOwner(dir) };
    throw cause;
  }
  writeFileSync(join(dir, PID_FILE), `${process.pid}\n`);
  let held = true;
  return {
    lock: {
      release() {
        if (!held) return;
        held = false;
        db.close();
      },
    },
  };
}
