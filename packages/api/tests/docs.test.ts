import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { REST_ERROR_STATUS } from '../src/index.js';

const conventions = readFileSync(new URL('../../../docs/API-ROUTE-CONVENTIONS.md', import.meta.url), 'utf8');

it('the conventions document lists exactly the code → status table of the code', () => {
  const rows = [...conventions.matchAll(/^\|\s*`([a-z0-9-]+)`\s*\|\s*(\d{3})\s*\|$/gm)].map(([, code, status]) => [
    code,
    Number(status),
  ]);
  expect(Object.fromEntries(rows)).toEqual(REST_ERROR_STATUS);
  expect(rows).toHaveLength(Object.keys(REST_ERROR_STATUS).length);
});

it('the conventions document states the pagination and idempotency constants the code uses', () => {
  expect(conventions).toContain('`?limit` 1..100, default 25');
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the document quotes the key template literally.
  expect(conventions).toContain('`${tenantId}|${METHOD}:${path}|${key}`');
  expect(conventions).toContain('`Retry-After: 5`');
  expect(conventions).toContain('`X-Idempotent-Replay: true`');
});
