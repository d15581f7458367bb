import type { KindgiDatabase } from './database.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Claims a blob directory for this process. The sweep at open deletes temporary and unreferenced files, which
 * would destroy a second live process's writes in flight, so only one process may own a directory at a time.
 * Returns the pid of a live owner that is not this process, or `undefined` once claimed.
 */
export function claimDirectory(db: KindgiDatabase): number | undefined {
  return db
    .transaction((): number | undefined => {
      const row = db.prepare<[], { pid: number }>('SELECT pid FROM blob_dir_owner WHERE id = 1').get();
      if (row !== undefined && row.pid !== process.pid && alive(row.pid)) return row.pid;
      db.prepare(
        `INSERT INTO blob_dir_owner (id, pid, opened_at) VALUES (1, ?, ?)
         ON CONFLICT (id) DO UPDATE SET pid = excluded.pid, opened_at = excluded.opened_at`,
      ).run(process.pid, new Date().toISOString());
      return undefined;
    })
    .immediate();
}

/** Gives a directory back when this process closes its storage. */
export function releaseDirectory(db: KindgiDatabase): void {
  db.prepare('DELETE FROM blob_dir_owner WHERE id = 1 AND pid = ?').run(process.pid);
}
