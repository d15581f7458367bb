import { callDeadlineMs } from '@kindgi/protocol';
import type { PackCallLayer } from '../pack-calls.js';

/**
 * Gives every call an explicit deadline: the caller's, else `DEFAULT_CALL_TIMEOUT_MS`. The pack then
 * receives the same `kindgi-timeout-ms` whichever path the call takes (supervised, remote, a run, a check),
 * and every layer below reasons about one number.
 */
export function deadlineLayer(): PackCallLayer {
  return (next) => (call) => {
    const deadlineMs = callDeadlineMs(call.deadlineMs);
    return next(call.deadlineMs === deadlineMs ? call : { ...call, deadlineMs });
  };
}
