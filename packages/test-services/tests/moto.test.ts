import { expect, it } from 'vitest';
import { startMotoServer, startRelay } from '../src/moto.js';

it('starts moto_server on a free port, relays to it, cuts and restores the relay, and stops', async () => {
  const moto = await startMotoServer();
  const relay = await startRelay(moto.endpoint);
  try {
    expect(moto.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    // moto answers ListBuckets without checking signatures.
    const direct = await fetch(`${moto.endpoint}/`);
    expect(direct.status).toBe(200);
    expect(await direct.text()).toContain('ListAllMyBucketsResult');
    expect((await fetch(`${relay.endpoint}/`)).status).toBe(200);
    await relay.cut();
    await expect(fetch(`${relay.endpoint}/`)).rejects.toThrow();
    await relay.restore();
    expect((await fetch(`${relay.endpoint}/`)).status).toBe(200);
  } finally {
    await relay.close();
    await moto.stop();
  }
  await expect(fetch(`${moto.endpoint}/`)).rejects.toThrow();
}, 60_000);
