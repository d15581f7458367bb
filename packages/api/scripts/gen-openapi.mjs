// Writes packages/api/openapi.json from the route definitions (run via `pnpm --filter @kindgi/api gen:openapi`).
import { writeFileSync } from 'node:fs';
import { createOpenApiDocument } from '../dist/index.js';

const target = new URL('../openapi.json', import.meta.url);
writeFileSync(target, `${JSON.stringify(createOpenApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${target.pathname}\n`);
