import { describe, expect, it } from 'vitest';
import { childLaunch } from '../src/supervisor/launch.js';
import { restartDelayMs } from '../src/supervisor/restart-timer.js';

const token = 'session-token-0123456789abcdefghijkl';

describe('childLaunch', () => {
  const base = {
    moduleRoot: '/pack',
    env: () => ({ PATH: '/bin', UNSET: undefined, KINDGI_PACK_SERVICE_TOKEN: 'copied' }),
  };

  it('passes the token on descriptor 3 by default, in no environment', () => {
    expect(childLaunch(base, ['node', 'main.js'], '/i.json', token)).toEqual({
      argv: [
        'node',
        'main.js',
        '--index',
        '/i.json',
        '--module-root',
        '/pack',
        '--host',
        '127.0.0.1',
        '--token-fd',
        '3',
      ],
      env: { PATH: '/bin', PORT: '0', KINDGI_LOG_FORMAT: 'json' },
      tokenOnFd3: token,
    });
  });

  it("sets KINDGI_PACK_SERVICE_TOKEN with tokenVia 'env', for a command without --token-fd", () => {
    expect(childLaunch({ ...base, tokenVia: 'env' }, ['java', 'Main', 'serve'], '/i.json', token)).toEqual({
      argv: ['java', 'Main', 'serve', '--index', '/i.json', '--module-root', '/pack', '--host', '127.0.0.1'],
      env: { PATH: '/bin', KINDGI_PACK_SERVICE_TOKEN: token, PORT: '0', KINDGI_LOG_FORMAT: 'json' },
    });
  });
});

describe('restartDelayMs', () => {
  it('grows by the factor from the initial delay and stops at the maximum', () => {
    const backoff = { initialMs: 200, maxMs: 1_000, factor: 2 };
    expect([1, 2, 3, 4, 5].map((attempt) => restartDelayMs(backoff, attempt))).toEqual([200, 400, 800, 1_000, 1_000]);
  });
});
