import type { Socket } from 'node:net';

/** What a connection's one `close` listener tells each call still running on it. */
export interface CloseWatcher {
  onSocketClose(): void;
}

const CLOSE_WATCHERS = Symbol('kindgi.pack-service.close-watchers');
type WatchedSocket = Socket & { [CLOSE_WATCHERS]?: Set<CloseWatcher> };

/**
 * Tells `watcher` when the connection closes; returns the set to delete it from to stop watching. One
 * `close` listener per connection serves every call on it: a listener per call on the response costs
 * more than the rest of the transport layer together (measured with the benchmark).
 */
export function watchClose(socket: Socket, watcher: CloseWatcher): Set<CloseWatcher> {
  const watched = socket as WatchedSocket;
  let watchers = watched[CLOSE_WATCHERS];
  if (!watchers) {
    const created = new Set<CloseWatcher>();
    watchers = created;
    watched[CLOSE_WATCHERS] = created;
    socket.once('close', () => {
      for (const each of created) each.onSocketClose();
      created.clear();
    });
  }
  watchers.add(watcher);
  return watchers;
}
