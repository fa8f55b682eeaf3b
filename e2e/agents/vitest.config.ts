import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The real-agent-CLI suite, run alone with `npm test` in e2e/agents (or
 * `npx vitest run -c e2e/agents/vitest.config.ts` from the repository root). Each test file installs
 * the pinned CLIs first if needed (install.mjs). Every CLI run is bounded at 60 s by run-cli.ts.
 */
const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  root: here,
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.work/**'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 15 * 60_000,
    // One file per CLI; two at a time fits a 2-core CI runner.
    maxWorkers: 2,
    fileParallelism: true,
  },
});
