import type { Socket } from 'node:net';

/** What a connection's one `close` listener tells each call still running on it. */
export interface CloseWatcher {
  onSocketClose(): void;
}

/**
 * The calls running on one connection. Almost always one at a time (HTTP/1.1 keep-alive without
 * pipelining), so the first is kept in a slot and a `Set` is made only for a second: a `Set` add and
 * delete per call were ≈ 1 % of a small call's CPU time.
 */
export class ConnectionWatchers {
  #one: CloseWatcher | undefined;
  #more: Set<CloseWatcher> | undefined;
  #closed = false;

  /** Watches until `delete`; a watcher added after the close hears of it at once. */
  add(watcher: CloseWatcher): void {
    if (this.#closed) watcher.onSocketClose();
    else if (this.#one === undefined) this.#one = watcher;
    else {
      this.#more ??= new Set();
      this.#more.add(watcher);
    }
  }

  delete(watcher: CloseWatcher): void {
    if (this.#one === watcher) this.#one = undefined;
    else this.#more?.delete(watcher);
  }

  /** Watchers not yet deleted (for tests). */
  size(): number {
    return (this.#one === undefined ? 0 : 1) + (this.#more?.size ?? 0);
  }

  /** The connection closed: tells every watcher once, in the order they were added. */
  closed(): void {
    this.#closed = true;
    const one = this.#one;
    const more = this.#more;
    this.#one = undefined;
    this.#more = undefined;
    one?.onSocketClose();
    if (more !== undefined) for (const each of more) each.onSocketClose();
  }
}

const CLOSE_WATCHERS = Symbol('kindgi.pack-service.close-watchers');
type WatchedSocket = Socket & { [CLOSE_WATCHERS]?: ConnectionWatchers };

/**
 * Tells `watcher` when the connection closes; returns the watchers to delete it from to stop watching.
 * One `close` listener per connection serves every call on it: a listener per call on the response
 * costs more than the rest of the transport layer together (measured with the benchmark).
 */
export function watchClose(socket: Socket, watcher: CloseWatcher): ConnectionWatchers {
  const watched = socket as WatchedSocket;
  let watchers = watched[CLOSE_WATCHERS];
  if (watchers === undefined) {
    const created = new ConnectionWatchers();
    watchers = created;
    watched[CLOSE_WATCHERS] = created;
    socket.once('close', () => created.closed());
  }
  watchers.add(watcher);
  return watchers;
}
