// ESLint for the whole repository: `npm run lint` (part of `npm test`), zero warnings allowed.
//
// TypeScript setup: `tsc` is TypeScript 7 (the native compiler, package.json's `@typescript/native`,
// an npm alias of typescript@7). TypeScript 7 ships no JavaScript compiler API, and typescript-eslint's
// type-aware rules need one, so the package named `typescript` is Microsoft's side-by-side
// `@typescript/typescript6` (TypeScript 6.0's API; its compiler is `tsc6`, which nothing here runs).
// typescript-eslint finds it by the plain name, and npm's peer-dependency check is satisfied without
// overrides. Both read the same tsconfig files, so the types ESLint sees are the ones `tsc` checks.
import path from 'node:path';
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import importCycles from './scripts/eslint-import-cycles.mjs';

/**
 * The order of electron/'s folders (and its composition files), lowest first: each may import only
 * what comes before it here, never what comes after (DESIGN.md section 2). platform/ holds what every
 * folder uses (log, data directory, disk, processes, safe paths); providers/ describes the CLIs and is a
 * leaf; then the ledger, the PTY, the sandbox, git, the task root, the core's events (the wire's hub and
 * the run lifecycle's typed events, which domains below the runs subscribe to), the domains, the run
 * lifecycle and what sits on it, the transports, and last the composition (core.ts) and its two hosts.
 * A new folder of electron/ must be placed here (electron/layering.test.ts fails until it is).
 */
export const folderOrder = [
  'platform',
  'providers',
  'ledger',
  'pty',
  'sandbox',
  'git',
  'task-root',
  'events',
  'notices',
  'agents',
  'connections',
  'hosts',
  'environments',
  'projects',
  'tasks',
  'usage',
  'search',
  'runs',
  'landing',
  'cleanup',
  'attention',
  'system',
  'transport',
  'handlers',
  'core.ts',
  'host',
  'service',
  'shell',
  'main.ts',
  'preload.ts',
];

/**
 * Imports against folderOrder not removed yet, each by file: `{ file, imports, why }` with paths from
 * the repository root. The list only shrinks: electron/layering.test.ts fails when a listed import is
 * gone or no longer goes against the order, so an exception is removed with the import it allowed.
 */
export const orderExceptions = /** @type {{ file: string, imports: string, why: string }[]} */ ([]);

/** Test support that drives the console as a transport does: outside the order, like the tests. */
const testSupport = ['electron/testing/**', '**/*.fixture.ts', '**/*test-fixtures.ts'];

/** The domain folders of the core: plain Node, reached by the transports, never reaching them. */
const domainFolders = folderOrder.slice(0, folderOrder.indexOf('transport'));
const transports = ['transport', 'host'];

/**
 * The layering (DESIGN.md section 2), checked on every import, export-from, dynamic import() and
 * require whose specifier resolves to a file: each zone names who (`target`) may not import what (`from`).
 */
const layering = [
  {
    target: './shared',
    from: './',
    except: ['./shared', './node_modules'],
    message: 'shared/ is the contract both sides use: it imports only shared/ and packages.',
  },
  {
    target: './renderer',
    from: './',
    except: ['./renderer', './shared', './node_modules'],
    message: 'The renderer is web code: it imports only renderer/, shared/ and packages.',
  },
  {
    // Everything but the thin shell: electron/main.ts, electron/preload.ts and electron/shell/.
    target: ['./shared', './renderer', './e2e', './scripts', './bench', './electron/!(shell)/**', './electron/!(main|preload).ts'],
    from: './node_modules/electron',
    message: 'Only the Electron shell (electron/main.ts, electron/preload.ts, electron/shell/) imports electron; the core is plain Node.',
  },
];

/**
 * providers/ describes the CLIs (argv, events, homes, how a key is delivered): everything above uses
 * it, and it uses nothing of the core but platform/.
 */
const providersAreALeaf = {
  target: './electron/providers',
  from: './electron',
  except: ['./providers', './platform'],
  message:
    'Provider definitions describe a CLI: they import only shared/, electron/platform/ and packages. What the rest of the core does with a CLI lives with it, and it asks the definition.',
};

/**
 * folderOrder as zones: each folder (or composition file) may not import what comes after it.
 * `exceptions` (from orderExceptions) let one file import one file; they are given to that file alone.
 * providers/ is kept by its own zone (a leaf is stricter than its place in the order).
 * @param {{ file: string, imports: string }[]} exceptions
 */
export function orderZones(exceptions) {
  return folderOrder.flatMap((folder, index) => {
    if (folder === 'providers') return [];
    // A domain reaching a transport is said by domainsDoNotReachTheTransports, once.
    const above = folderOrder.slice(index + 1).filter((other) => !(domainFolders.includes(folder) && transports.includes(other)));
    /** @param {string} other */
    const excepted = (other) =>
      exceptions
        .filter((exception) => exception.imports === `electron/${other}` || exception.imports.startsWith(`electron/${other}/`))
        .map((exception) => path.relative(`electron/${other}`, exception.imports) || '.');
    const message =
      `electron/${folder} comes before it in folderOrder (eslint.config.js): a folder imports only what comes before it. ` +
      'Move what both need down the order (a type into a leaf file of the lower folder), or let the higher folder pass it in.';
    /** @type {{ target: string, from: string[], except?: string[], message: string }[]} */
    const zones = [{ target: `./electron/${folder}`, from: above.filter((other) => excepted(other).length === 0).map((other) => `./electron/${other}`), message }];
    for (const other of above.filter((other) => excepted(other).length > 0)) {
      zones.push({ target: `./electron/${folder}`, from: [`./electron/${other}`], except: excepted(other).map((relative) => `./${relative}`), message });
    }
    return zones.filter((zone) => zone.from.length > 0);
  });
}

/** Not for tests: a domain's integration tests may drive the console the way a transport does. */
const domainsDoNotReachTheTransports = {
  target: domainFolders.map((folder) => `./electron/${folder}`),
  from: transports.map((folder) => `./electron/${folder}`),
  message: 'A domain folder does not know how it is reached: the transports (electron/transport/, electron/host/) import it, not the other way round.',
};

export default defineConfig(
  globalIgnores(['dist/', 'native/', 'test-results/', 'playwright-report/', 'e2e/agents/.work/', '.operator-console-data/']),

  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each file is checked in the tsconfig program that `npm run typecheck` checks it in (the
        // solution tsconfig.json lists them), so the linter and tsc agree on lib and types.
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      // As tsc's noUnusedLocals reads them: a leading _ or a rest sibling marks a deliberate omission.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // The .mjs files are type-checked from their JSDoc (tsconfig.js.json), which also covers what
    // no-undef would: it knows the Node globals, and ESLint does not.
    files: ['**/*.{js,mjs}'],
    rules: { 'no-undef': 'off' },
  },
  {
    files: ['**/*.test.{ts,tsx}', 'e2e/**/*.ts'],
    rules: {
      // vitest's asymmetric matchers (expect.any, expect.stringContaining, ...) are typed `any`, and
      // assertions put them in every expected object; reading an `any` is still reported.
      '@typescript-eslint/no-unsafe-assignment': 'off',
    },
  },
  {
    // Playwright reads a fixture's first parameter as a pattern and wants `{}` when it uses none.
    files: ['e2e/**/*.ts'],
    rules: { 'no-empty-pattern': ['error', { allowObjectPatternsAsParameters: true }] },
  },

  {
    files: ['renderer/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat.recommended],
  },

  {
    plugins: { 'import-x': importX },
    settings: {
      // Extensionless relative imports, as the bundler and tsc resolve them. `symlinks: false` keeps a
      // linked node_modules (a git worktree's) at its path in the repository, where the zones look.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.mts', '.d.mts', '.mjs', '.js', '.json'], symlinks: false })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layering, domainsDoNotReachTheTransports, providersAreALeaf, ...orderZones([])] }],
    },
  },
  // A file with an exception to the order gets zones that let it (and only it) make those imports.
  ...[...new Set(orderExceptions.map((exception) => exception.file))].map((file) => /** @type {import('eslint').Linter.Config} */ ({
    files: [file],
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          basePath: import.meta.dirname,
          zones: [...layering, domainsDoNotReachTheTransports, providersAreALeaf, ...orderZones(orderExceptions.filter((exception) => exception.file === file))],
        },
      ],
    },
  })),
  {
    files: testSupport,
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: [...layering, domainsDoNotReachTheTransports] }],
    },
  },
  {
    files: ['**/*.test.{ts,tsx}'],
    rules: {
      'import-x/no-restricted-paths': ['error', { basePath: import.meta.dirname, zones: layering }],
    },
  },
  {
    // Every import of our own modules, `import type` included, must not lead back to the importer
    // (scripts/eslint-import-cycles.mjs says why this is not import-x/no-cycle).
    files: ['**/*.{ts,tsx,mts,js,mjs}'],
    plugins: { local: importCycles },
    rules: { 'local/no-import-cycle': 'error' },
  },
  {
    // no-restricted-paths sees only specifiers that resolve to a file; Electron's built-in subpaths
    // (electron/main, electron/renderer, ...) exist only inside Electron, so they are named here.
    ignores: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: [{ group: ['electron/*'], message: 'Only the Electron shell imports electron.' }] },
      ],
    },
  },
);
