import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { ConnectionWatchers, watchClose } from '../src/service/close-watch.js';

function watcher(name: string, heard: string[]) {
  return { onSocketClose: () => heard.push(name) };
}

describe('ConnectionWatchers', () => {
  it('tells every watcher not deleted, once, in the order they were added', () => {
    const heard: string[] = [];
    const watchers = new ConnectionWatchers();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => watcher(name, heard));
    watchers.add(a!);
    watchers.add(b!);
    watchers.add(c!);
    watchers.delete(b!);
    watchers.add(d!);
    expect(watchers.size()).toBe(3);
    watchers.closed();
    expect(heard).toEqual(['a', 'c', 'd']);
    expect(watchers.size()).toBe(0);
    watchers.closed();
    expect(heard).toEqual(['a', 'c', 'd']);
  });

  it('frees the slot for the next call on the connection and tells only it', () => {
    const heard: string[] = [];
    const watchers = new ConnectionWatchers();
    for (const name of ['first', 'second', 'third']) {
      const each = watcher(name, heard);
      watchers.add(each);
      if (name !== 'third') watchers.delete(each);
    }
    expect(watchers.size()).toBe(1);
    watchers.closed();
    expect(heard).toEqual(['third']);
  });

  it('tells a watcher added after the close at once', () => {
    const heard: string[] = [];
    const watchers = new ConnectionWatchers();
    watchers.closed();
    watchers.add(watcher('late', heard));
    expect(heard).toEqual(['late']);
    expect(watchers.size()).toBe(0);
  });

  it('puts one close listener on a socket for all its calls', () => {
    const heard: string[] = [];
    const socket = new Socket();
    const first = watchClose(socket, watcher('a', heard));
    const second = watchClose(socket, watcher('b', heard));
    expect(second).toBe(first);
    expect(socket.listenerCount('close')).toBe(1);
    socket.emit('close', false);
    expect(heard).toEqual(['a', 'b']);
    socket.destroy();
  });
});
