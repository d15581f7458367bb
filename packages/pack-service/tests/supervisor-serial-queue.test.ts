import { describe, expect, it } from 'vitest';
import { createSerialQueue } from '../src/supervisor/serial-queue.js';

describe('supervisor: the boot queue', () => {
  it('starts each task once the one before settled, a rejected one included', async () => {
    const serialize = createSerialQueue();
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = serialize(async () => {
      order.push('first starts');
      await gate;
      order.push('first ends');
      throw new Error('first failed');
    });
    const second = serialize(async () => {
      order.push('second starts');
      return 2;
    });
    await Promise.resolve();
    expect(order).toEqual(['first starts']);
    release();
    await expect(first).rejects.toThrow('first failed');
    expect(await second).toBe(2);
    expect(order).toEqual(['first starts', 'first ends', 'second starts']);
  });
});
