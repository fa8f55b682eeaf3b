import { builtinModules } from 'node:module';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';
import packageJson from './package.json' with { type: 'json' };

/**
 * One config, three builds (chosen with --mode):
 *   renderer  the React app                         -> dist/renderer/
 *   node      Electron main, serve, the service     -> dist/electron/{main,serve,service}.js (ESM)
 *             and the ledger restore command         -> dist/electron/restore-ledger.js
 *             and the ledger's output writer thread  -> dist/electron/output-writer-worker.js
 *             and the search reader thread           -> dist/electron/search-reader-worker.js
 *   preload   the sandboxed preload, one CJS file   -> dist/electron/preload.cjs
 * Sandboxed preloads cannot be ESM and cannot require anything but electron, so the preload bundles
 * shared/ (zod included) into a single file.
 */

const nodeExternals = [
  'electron',
  ...Object.keys(packageJson.dependencies),
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
];
const external = (id: string) => nodeExternals.some((name) => id === name || id.startsWith(`${name}/`));

/**
 * Two test projects: `.test.ts` files run in Node (the core, shared/, and the renderer's logic with
 * no DOM); `.test.tsx` files render components in a DOM (happy-dom) with Testing Library, the way an
 * operator meets them. Both run on `npm run test:unit`.
 */
const testConfig = {
  testTimeout: 20_000,
  hookTimeout: 20_000,
  projects: [
    {
      extends: true,
      test: {
        name: 'node',
        include: ['electron/**/*.test.ts', 'shared/**/*.test.ts', 'renderer/**/*.test.ts', 'scripts/**/*.test.ts'],
        environment: 'node',
      },
    },
    {
      extends: true,
      test: {
        name: 'dom',
        include: ['renderer/**/*.test.tsx'],
        environment: 'happy-dom',
        setupFiles: ['renderer/testing/dom-setup.ts'],
        // The benchmarks (bench/) drive a real PTY and ledger: Node's project runs them.
        benchmark: { include: [] },
      },
    },
  ],
};

export default defineConfig(({ mode }): UserConfig => {
  const define = { __APP_VERSION__: JSON.stringify(packageJson.version) };
  if (mode === 'node') {
    return {
      define,
      build: {
        outDir: 'dist/electron',
        emptyOutDir: false,
        target: 'node20',
        sourcemap: true,
        minify: false,
        ssr: true,
        rollupOptions: {
          // Each worker is its own entry: a thread loads it by file (electron/platform/worker-module.ts finds it).
          input: {
            main: 'electron/main.ts',
            serve: 'electron/service/serve.ts',
            // The console service's process, started detached by serve.js and the desktop app.
            service: 'electron/service/service-main.ts',
            // The Node client of the service's socket, by a fixed name: a test kills a client process that loads it.
            'service-client': 'electron/service/service-client.ts',
            'output-writer-worker': 'electron/ledger/output-writer-worker.ts',
            'search-reader-worker': 'electron/search/search-reader-worker.ts',
            // `npm run ledger:restore` (scripts/restore-ledger.mjs).
            'restore-ledger': 'electron/ledger/restore-ledger-command.ts',
          },
          external,
          output: { format: 'es', entryFileNames: '[name].js', chunkFileNames: 'chunks/[name]-[hash].js' },
        },
      },
    };
  }
  if (mode === 'preload') {
    return {
      define,
      build: {
        outDir: 'dist/electron',
        emptyOutDir: false,
        target: 'node20',
        sourcemap: true,
        minify: false,
        ssr: true,
        ssrEmitAssets: false,
        rollupOptions: {
          input: { preload: 'electron/preload.ts' },
          external: ['electron'],
          output: { format: 'cjs', entryFileNames: '[name].cjs', codeSplitting: false },
        },
      },
      ssr: { noExternal: true },
    };
  }
  // The renderer (default mode, also what vitest loads).
  return {
    define,
    root: 'renderer',
    base: './',
    plugins: [react()],
    build: { outDir: '../dist/renderer', emptyOutDir: true, sourcemap: true, target: 'es2022' },
    test: { ...testConfig, root: '.' },
  } as UserConfig;
});
