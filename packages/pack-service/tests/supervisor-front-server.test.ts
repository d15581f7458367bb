import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type FrontServer, frontUrl, listenFront } from '../src/supervisor/front-server.js';

const open: FrontServer[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

async function listening(handler: Parameters<typeof listenFront>[0], port = 0): Promise<FrontServer> {
  const listened = await listenFront(handler, '127.0.0.1', port);
  if (listened.kind === 'err') throw new Error(listened.error);
  open.push(listened.value);
  return listened.value;
}

describe("supervisor: the front's server", () => {
  it('listens on a free port and serves with the handler', async () => {
    const server = await listening((_req, res) => res.end('front'));
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const reply = await fetch(`${server.url}/healthz`);
    expect(await reply.text()).toBe('front');
  });

  it('reports an address it cannot bind as an error, not a throw', async () => {
    const taken = await listening(() => undefined);
    const port = Number(new URL(taken.url).port);
    const again = await listenFront(() => undefined, '127.0.0.1', port);
    expect(again.kind === 'err' && again.error).toMatch(/^Cannot listen: .*EADDRINUSE/);
  });

  it('closes even with a call in flight, ending its connection', async () => {
    let arrived!: () => void;
    const inHandler = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    const server = await listening(() => arrived());
    const call = new Promise<string>((resolve) => {
      const req = request(`${server.url}/v1/info`, () => resolve('answered'));
      req.on('error', (error) => resolve(error.message));
      req.end();
    });
    await inHandler;
    open.splice(open.indexOf(server), 1);
    await server.close();
    expect(await call).toBe('socket hang up');
  });

  it('puts an IPv6 host in brackets', () => {
    expect(frontUrl('::1', 8080)).toBe('http://[::1]:8080');
    expect(frontUrl('127.0.0.1', 8080)).toBe('http://127.0.0.1:8080');
  });
});
