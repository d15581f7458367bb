import { describe, expect, it } from 'vitest';
import { createTeardown } from '../src/start/teardown.js';

describe('the teardown stack', () => {
  it('runs its steps newest first, each after the one before settled', async () => {
    const teardown = createTeardown();
    const order: string[] = [];
    teardown.add('database', () => void order.push('database'));
    teardown.add('blob storage', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      order.push('blob storage');
    });
    teardown.add('packs', () => void order.push('packs'));
    expect(await teardown.run()).toEqual([]);
    expect(order).toEqual(['packs', 'blob storage', 'database']);
  });

  it('runs each step once however often it is run, and every run has the first outcome', async () => {
    const teardown = createTeardown();
    let runs = 0;
    teardown.add('once', () => {
      runs++;
      throw new Error('closed already');
    });
    const [first, second] = await Promise.all([teardown.run(), teardown.run()]);
    const third = await teardown.run();
    expect(runs).toBe(1);
    expect(first).toEqual([{ step: 'once', message: 'closed already' }]);
    expect(second).toBe(first);
    expect(third).toBe(first);
  });

  it('keeps going past a step that throws or rejects, and reports each', async () => {
    const teardown = createTeardown();
    const ran: string[] = [];
    teardown.add('first added', () => void ran.push('first added'));
    teardown.add('rejects', async () => {
      ran.push('rejects');
      throw new Error('pool gone');
    });
    teardown.add('throws', () => {
      ran.push('throws');
      throw new Error('socket gone');
    });
    expect(await teardown.run()).toEqual([
      { step: 'throws', message: 'socket gone' },
      { step: 'rejects', message: 'pool gone' },
    ]);
    expect(ran).toEqual(['throws', 'rejects', 'first added']);
  });

  it('releases a step added after it ran at once', async () => {
    const teardown = createTeardown();
    await teardown.run();
    const released = new Promise<void>((resolve) => teardown.add('late', resolve));
    await released;
    expect(await teardown.run()).toEqual([]);
  });
});
