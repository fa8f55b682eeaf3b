import { defineConfig } from 'vitest/config';

/**
 * `npm run soak` (scripts/soak.mjs): the soak alone, in one process with --expose-gc so memory is
 * sampled after a collection. Not part of `npm test`.
 */
export default defineConfig({
  test: {
    include: ['bench/soak.ts'],
    environment: 'node',
    testTimeout: 60 * 60_000,
    hookTimeout: 60_000,
    execArgv: ['--expose-gc'],
    fileParallelism: false,
    // One line per run, as it ends, straight to the terminal.
    disableConsoleIntercept: true,
  },
});
