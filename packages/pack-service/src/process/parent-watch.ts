import { fstatSync } from 'node:fs';

/**
 * Calls `onGone` once when this process's stdin is a pipe (or socket) and its writer goes away: a supervisor gives
 * its child a pipe it never writes to, so the pipe closes when the supervisor dies, even by SIGKILL, and
 * the child does not linger as an orphan. Platforms start services with stdin on /dev/null or a TTY, not
 * a pipe, so nothing changes for them. Returns whether it is watching.
 */
export function onStdinPipeClosed(onGone: () => void): boolean {
  let isPipe = false;
  try {
    // Node hands a child a socketpair for a 'pipe' stdin; a shell pipeline gives a FIFO.
    const stat = fstatSync(0);
    isPipe = stat.isFIFO() || stat.isSocket();
  } catch {
    return false;
  }
  if (!isPipe) return false;
  let fired = false;
  const fire = () => {
    if (fired) return;
    fired = true;
    onGone();
  };
  process.stdin.on('end', fire);
  process.stdin.on('close', fire);
  process.stdin.on('error', fire);
  // Whatever arrives is ignored: the pipe only signals that its writer is alive.
  process.stdin.on('data', () => {});
  process.stdin.resume();
  // Waiting for the pipe must not be what keeps the service alive.
  process.stdin.unref?.();
  return true;
}
