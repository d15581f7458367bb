import { existsSync, readdirSync } from 'node:fs';

// Workspace packages resolve to their TypeScript sources (the `source` export condition), so tests and
// type checks never depend on a stale build. Only black-box tests that spawn `dist/` entries need a build.
const conditions = ['source', 'module', 'node', 'development|production'];

const packages = readdirSync('packages', { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && existsSync(`packages/${entry.name}/tests`))
  .map((entry) => entry.name);

export default packages.map((name) => ({
  root: `packages/${name}`,
  resolve: { conditions },
  ssr: { resolve: { conditions } },
  test: {
    name,
    include: ['tests/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
}));
